/**
 * The BFCL API classes implemented here, by the class name used in `involved_classes` / `initial_config`, with the
 * func_doc file that describes each to the policy.
 */
import type { ApiInstance } from "./api-types";
import type { ApiOptions } from "./long-context";
import { createFileSystem } from "./file-system";
import { createMathApi } from "./math";
import { createMessageApi } from "./message";
import { createTwitterApi } from "./posting";
import { createTicketApi } from "./ticket";
import { createTradingBot } from "./trading";
import { createTravelApi } from "./travel";
import { createVehicleApi } from "./vehicle";

export interface ApiClassEntry {
  create(config: Record<string, unknown>, options: ApiOptions): ApiInstance;
  funcDocFile: string;
}

export const BFCL_API_CLASSES: Record<string, ApiClassEntry> = {
  GorillaFileSystem: { create: createFileSystem, funcDocFile: "gorilla_file_system.json" },
  MathAPI: { create: createMathApi, funcDocFile: "math_api.json" },
  MessageAPI: { create: createMessageApi, funcDocFile: "message_api.json" },
  TwitterAPI: { create: createTwitterApi, funcDocFile: "posting_api.json" },
  TicketAPI: { create: createTicketApi, funcDocFile: "ticket_api.json" },
  TradingBot: { create: createTradingBot, funcDocFile: "trading_bot.json" },
  TravelAPI: { create: createTravelApi, funcDocFile: "travel_booking.json" },
  VehicleControlAPI: { create: createVehicleApi, funcDocFile: "vehicle_control.json" },
};

export function isImplementedClass(name: string): boolean {
  return name in BFCL_API_CLASSES;
}

export type { ApiInstance } from "./api-types";
export type { ApiOptions } from "./long-context";
