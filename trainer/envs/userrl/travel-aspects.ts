/**
 * The five travel aspects of UserRL's TravelGym, the letter that starts their option IDs (F12, H3, R7, A2, C4), the
 * words that name them in a message, and what the fields of their options mean (shown with search results, as
 * TravelGym shows a schema before the options).
 */
export const TRAVEL_ASPECTS = ["flight", "hotel", "restaurant", "apartment", "rental_car"] as const;
export type TravelAspect = (typeof TRAVEL_ASPECTS)[number];

export const OPTION_INITIAL: Record<TravelAspect, string> = { flight: "F", hotel: "H", restaurant: "R", apartment: "A", rental_car: "C" };

/** TravelGym's option ID format: one of its five initials and a number. */
export const OPTION_ID = /^[FHRAC]\d+$/;

export function aspectOfInitial(initial: string): TravelAspect | null {
  return TRAVEL_ASPECTS.find((a) => OPTION_INITIAL[a] === initial) ?? null;
}

/** How an aspect is named in a message; a word matches whole, in the singular or plural. */
const ASPECT_WORDS: Record<TravelAspect, string[]> = {
  flight: ["flight", "fly", "airline", "plane"],
  hotel: ["hotel"],
  restaurant: ["restaurant", "dining", "dinner"],
  apartment: ["apartment", "airbnb"],
  rental_car: ["rental_car", "rental car", "car rental", "car", "vehicle"],
};

export function mentionsAspect(text: string, aspect: TravelAspect): boolean {
  const lower = text.toLowerCase();
  return ASPECT_WORDS[aspect].some((w) => new RegExp(`(^|[^a-z_])${w}s?($|[^a-z_])`).test(lower));
}

/** Judges sometimes write "rental car" or "car rental" for the rental_car aspect (TravelGym maps them too). */
export function readAspect(text: string): TravelAspect | null {
  const t = text.trim().toLowerCase().replace(/\s+/g, "_");
  const name = t === "car_rental" ? "rental_car" : t;
  return (TRAVEL_ASPECTS as readonly string[]).includes(name) ? (name as TravelAspect) : null;
}

export const OPTION_FIELDS: Record<TravelAspect, string> = {
  flight:
    "Each flight: id; path (airports from origin to destination, layovers included); time (hours of each flight and layover, alternating); company and flight_number (one per leg); cost (economy ticket, USD); amenities (free on board); service (paid extras).",
  hotel:
    "Each hotel: id; name; room (room types with their capacity); cost (the whole stay per room type, USD); rating (0–10); amenities (free); service (paid extras).",
  restaurant:
    "Each restaurant: id; name; cuisine; expectation (price level); rating (0–10); reviews (count per star rating); tags (what it is known for).",
  apartment:
    "Each apartment: id; name; room (bedrooms and bathrooms, e.g. 2B1B); capacity (guests); cost (the whole stay, USD); rating (0–10); amenities (free); service (paid extras).",
  rental_car:
    "Each rental car: id; brand; model; categories (vehicle class); seats; cost (the whole rental, USD); insurance (options and their cost); service (paid extras).",
};
