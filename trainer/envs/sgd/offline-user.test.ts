/** The offline SGD user recognises what the agent asks for by the schema's slot descriptions, not only slot names. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createOfflineUserState, offlineUserReply, slotKeywords } from "./offline-user";
import type { SgdService } from "./sgd-format";
import { EMPTY_TEMPLATES } from "./user-templates";

const slot = (name: string, description: string) => ({ name, description, isCategorical: false, possibleValues: [] });
// Restaurants_2 names its city slot "location": "Which city?" must still reach it.
const restaurants2: SgdService = {
  name: "Restaurants_2",
  description: "A popular restaurant search and reservation service",
  slots: [
    slot("restaurant_name", "Name of the restaurant"),
    slot("location", "City where the restaurant is located"),
    slot("category", "The category of food offered by the restaurant"),
    slot("number_of_seats", "Number of seats to reserve at the restaurant"),
  ],
  intents: [
    {
      name: "FindRestaurants",
      description: "Find restaurants by location and by category of food",
      isTransactional: false,
      requiredSlots: ["category", "location"],
      optionalSlots: {},
      resultSlots: [],
    },
  ],
};

test("a slot is asked for by the words of its description that tell it apart (city → location), not by words every slot shares", () => {
  const keys = slotKeywords("location", restaurants2);
  assert.ok(keys.includes("city") && keys.includes("located"), keys.join(", "));
  assert.ok(!keys.includes("restaurant"), "every slot of the service mentions the restaurant");
  const state = createOfflineUserState();
  const reply = offlineUserReply(state, {
    goal: [{ service: "Restaurants_2", intent: "FindRestaurants", parameters: { location: "San Jose", category: "Mexican" } }],
    services: [restaurants2],
    templates: EMPTY_TEMPLATES,
    completed: new Set(),
    agentText: "Sure! Which city are you in?",
    pick: () => 0,
  });
  assert.match(reply, /San Jose/);
  assert.doesNotMatch(reply, /Mexican/, "only what was asked");
});
