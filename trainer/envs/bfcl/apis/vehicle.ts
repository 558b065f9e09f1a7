/**
 * VehicleControlAPI: engine, doors, brakes, climate, lights, cruise control, navigation and tyres of one car (BFCL
 * func_doc `vehicle_control.json`). Starting the engine needs all doors locked and the brake pedal fully pressed;
 * fuel is in gallons (tank 50, 20 miles per gallon). Random readings use PyRandom like the Python original.
 */
import { pyTruthy } from "./py-values";
import { PyRandom } from "../py-random";
import { longContextData, type ApiOptions } from "./long-context";
import { ApiError, initial, list, method, num, str, type ApiInstance } from "./api-types";

const MAX_FUEL = 50;
const MILES_PER_GALLON = 20;
/** Road distances between the zip codes BFCL's tasks use (symmetric). */
const DISTANCES: [string, string, number][] = [
  ["83214", "74532", 750],
  ["56108", "62947", 320],
  ["71354", "83462", 450],
  ["47329", "52013", 290],
  ["69238", "51479", 630],
  ["94016", "83214", 980],
  ["94016", "94704", 600],
  ["94704", "08540", 2550],
  ["94016", "08540", 1950],
  ["62947", "47329", 1053],
  ["94016", "62947", 780],
  ["74532", "94016", 880],
];
const ZIPCODES: Record<string, string> = {
  Rivermist: "83214",
  Stonebrook: "74532",
  Maplecrest: "56108",
  Silverpine: "62947",
  Shadowridge: "71354",
  "Sunset Valley": "83462",
  Oakendale: "47329",
  Willowbend: "52013",
  "Crescent Hollow": "69238",
  Autumnville: "51479",
  "San Francisco": "94016",
};

export function createVehicleApi(config: Record<string, unknown>, options: ApiOptions): ApiInstance {
  // long_context: gorilla pads answers with pages of car metadata, brake instructions, weather and cities.
  const long = options.longContext ? longContextData() : null;
  const rng = new PyRandom(typeof config.random_seed === "number" ? config.random_seed : 141053);
  const doorStatus = initial<Record<string, string>>(config, "doorStatus", {
    driver: "unlocked",
    passenger: "unlocked",
    rear_left: "unlocked",
    rear_right: "unlocked",
  });
  const s = {
    fuelLevel: initial(config, "fuelLevel", 0.0),
    batteryVoltage: initial(config, "batteryVoltage", 12.6),
    engine_state: initial(config, "engineState", "stopped"),
    // Recomputed from the doors, whatever the config says (as BFCL does).
    remainingUnlockedDoors: 4 - Object.values(doorStatus).filter((d) => d === "locked").length,
    doorStatus,
    acTemperature: initial(config, "acTemperature", 25.0),
    fanSpeed: initial(config, "fanSpeed", 50),
    acMode: initial(config, "acMode", "auto"),
    humidityLevel: initial(config, "humidityLevel", 50.0),
    headLightStatus: initial(config, "headLightStatus", "off"),
    parkingBrakeStatus: initial(config, "parkingBrakeStatus", "released"),
    brakePedalStatus: initial(config, "brakePedalStatus", "released"),
    distanceToNextVehicle: initial(config, "distanceToNextVehicle", 50.0),
    cruiseStatus: initial(config, "cruiseStatus", "inactive"),
    destination: initial(config, "destination", "None"),
    frontLeftTirePressure: initial(config, "frontLeftTirePressure", 32.0),
    frontRightTirePressure: initial(config, "frontRightTirePressure", 32.0),
    rearLeftTirePressure: initial(config, "rearLeftTirePressure", 30.0),
    rearRightTirePressure: initial(config, "rearRightTirePressure", 30.0),
  };
  // Underscore attributes in BFCL: not part of the compared state.
  const hidden = {
    parkingBrakeForce: initial(config, "parkingBrakeForce", 0.0),
    slopeAngle: initial(config, "slopeAngle", 0.0),
    brakePedalForce: initial(config, "brakePedalForce", 0.0),
  };
  const tires = () => ({
    frontLeftTirePressure: s.frontLeftTirePressure,
    frontRightTirePressure: s.frontRightTirePressure,
    rearLeftTirePressure: s.rearLeftTirePressure,
    rearRightTirePressure: s.rearRightTirePressure,
  });

  /** displayCarStatus's fields for one option (in long_context they follow the car metadata). */
  const carStatus = (option: unknown): Record<string, unknown> => {
    switch (option) {
      case "fuel":
        return { fuelLevel: s.fuelLevel };
      case "battery":
        return { batteryVoltage: s.batteryVoltage };
      case "doors":
        return { doorStatus: s.doorStatus };
      case "climate":
        return { currentACTemperature: s.acTemperature, fanSpeed: s.fanSpeed, climateMode: s.acMode, humidityLevel: s.humidityLevel };
      case "headlights":
        return { headlightStatus: s.headLightStatus };
      case "parkingBrake":
        return { parkingBrakeStatus: s.parkingBrakeStatus, parkingBrakeForce: hidden.parkingBrakeForce, slopeAngle: hidden.slopeAngle };
      case "brakePedal":
        return { brakePedalStatus: s.brakePedalStatus, brakePedalForce: hidden.brakePedalForce };
      case "engine":
        return { engineState: s.engine_state };
      default:
        return { error: "Invalid option" };
    }
  };

  return {
    className: "VehicleControlAPI",
    state: () => s,
    methods: {
      startEngine: method(["ignitionMode"], (a) => {
        const mode = str(a.ignitionMode, "ignitionMode");
        if (mode === "STOP") s.engine_state = "stopped";
        if (s.remainingUnlockedDoors > 0) {
          const open = Object.entries(s.doorStatus)
            .filter(([, v]) => v === "unlocked")
            .map(([k]) => k);
          return { error: `All doors must be locked before starting the engine. Here are the unlocked doors: ${open.join(", ")}` };
        }
        if (s.brakePedalStatus !== "pressed") return { error: "Brake pedal needs to be pressed when starting the engine." };
        if (hidden.brakePedalForce !== 1000) return { error: "Must press the brake fully before starting the engine." };
        if (s.fuelLevel < 0) return { error: "Fuel tank is empty." };
        if (mode !== "START") return { error: "Invalid ignition mode." };
        s.engine_state = "running";
        return { engineState: s.engine_state, fuelLevel: s.fuelLevel, batteryVoltage: s.batteryVoltage };
      }),
      fillFuelTank: method(["fuelAmount"], (a) => {
        const amount = num(a.fuelAmount, "fuelAmount");
        if (amount < 0) return { error: "Fuel amount cannot be negative." };
        if (s.fuelLevel + amount > MAX_FUEL) return { error: "Cannot fill gas above the tank capacity." };
        s.fuelLevel += amount;
        return { fuelLevel: s.fuelLevel };
      }),
      lockDoors: method(["unlock", "door"], (a) => {
        const unlock = a.unlock === true;
        for (const d of list<string>(a.door, "door")) {
          if (!(d in s.doorStatus)) throw new ApiError(`'${d}'`);
          const target = unlock ? "unlocked" : "locked";
          if (s.doorStatus[d] === target) continue;
          s.doorStatus[d] = target;
          s.remainingUnlockedDoors += unlock ? 1 : -1;
        }
        return { lockStatus: unlock ? "unlocked" : "locked", remainingUnlockedDoors: s.remainingUnlockedDoors };
      }),
      adjustClimateControl: method(["temperature", ["unit", "celsius"], ["fanSpeed", 50], ["mode", "auto"]], (a) => {
        const fan = num(a.fanSpeed, "fanSpeed");
        if (fan < 0 || fan > 100) return { error: "Fan speed must be between 0 and 100." };
        const t = num(a.temperature, "temperature");
        s.acTemperature = a.unit === "fahrenheit" ? ((t - 32) * 5) / 9 : t;
        s.fanSpeed = fan;
        s.acMode = str(a.mode, "mode");
        return { currentACTemperature: t, climateMode: s.acMode, humidityLevel: s.humidityLevel };
      }),
      get_outside_temperature_from_google: method([], () =>
        long ? { ...long.LONG_WEATHER_EXTENSION, outsideTemperature: rng.uniform(-10, 40) } : { outsideTemperature: rng.uniform(-10, 40) },
      ),
      get_outside_temperature_from_weather_com: method([], () => ({ error: 404 })),
      setHeadlights: method(["mode"], (a) => {
        if (!["on", "off", "auto"].includes(String(a.mode))) return { error: "Invalid headlight mode." };
        s.headLightStatus = a.mode === "on" ? "on" : "off";
        return { headlightStatus: s.headLightStatus };
      }),
      displayCarStatus: method(["option"], (a) => ({
        ...(long ? { metadata: long.CAR_STATUS_METADATA_EXTENSION } : {}),
        ...carStatus(a.option),
      })),
      activateParkingBrake: method(["mode"], (a) => {
        if (a.mode !== "engage" && a.mode !== "release") return { error: "Invalid mode" };
        const engaged = a.mode === "engage";
        s.parkingBrakeStatus = engaged ? "engaged" : "released";
        hidden.parkingBrakeForce = engaged ? 500 : 0;
        hidden.slopeAngle = 10;
        const status = { parkingBrakeStatus: s.parkingBrakeStatus, _parkingBrakeForce: hidden.parkingBrakeForce, _slopeAngle: 10 };
        return long ? { parkingBrakeInstruction: long.PARKING_BRAKE_INSTRUCTION, ...status } : status;
      }),
      pressBrakePedal: method(["pedalPosition"], (a) => {
        const p = num(a.pedalPosition, "pedalPosition");
        if (p < 0 || p > 1) return { error: "Pedal position must be between 0 and 1." };
        if (p === 0) {
          s.brakePedalStatus = "released";
          hidden.brakePedalForce = 0;
          return { brakePedalStatus: "released", brakePedalForce: 0 };
        }
        s.brakePedalStatus = "pressed";
        hidden.brakePedalForce = p * 1000;
        return { brakePedalStatus: "pressed", brakePedalForce: hidden.brakePedalForce };
      }),
      releaseBrakePedal: method([], () => {
        s.brakePedalStatus = "released";
        hidden.brakePedalForce = 0;
        return { brakePedalStatus: "released", brakePedalForce: 0 };
      }),
      setCruiseControl: method(["speed", "activate", "distanceToNextVehicle"], (a) => {
        const speed = num(a.speed, "speed");
        const distance = num(a.distanceToNextVehicle, "distanceToNextVehicle");
        if (s.engine_state === "stopped") return { error: "Start the engine before activating the cruise control." };
        s.distanceToNextVehicle = distance;
        if (pyTruthy(a.activate)) {
          if (speed < 0 || speed > 120 || speed % 5 !== 0) return { error: "Invalid speed" };
          s.cruiseStatus = "active";
        } else s.cruiseStatus = "inactive";
        return { cruiseStatus: s.cruiseStatus, currentSpeed: speed, distanceToNextVehicle: distance };
      }),
      get_current_speed: method([], () => ({ currentSpeed: rng.uniform(0, 120) })),
      display_log: method(["messages"], (a) => ({ log: list(a.messages, "messages") })),
      estimate_drive_feasibility_by_mileage: method(["distance"], (a) => ({
        canDrive: s.fuelLevel * MILES_PER_GALLON >= num(a.distance, "distance"),
      })),
      liter_to_gallon: method(["liter"], (a) => ({ gallon: num(a.liter, "liter") * 0.264172 })),
      gallon_to_liter: method(["gallon"], (a) => ({ liter: num(a.gallon, "gallon") * 3.78541 })),
      estimate_distance: method(["cityA", "cityB"], (a) => {
        const hit = DISTANCES.find(([x, y]) => (x === a.cityA && y === a.cityB) || (x === a.cityB && y === a.cityA));
        const distance: Record<string, unknown> = hit ? { distance: hit[2] } : { error: "distance not found in database." };
        return long ? { ...distance, intermediaryCities: long.INTERMEDIARY_CITIES } : distance;
      }),
      get_zipcode_based_on_city: method(["city"], (a) => ({ zipcode: ZIPCODES[String(a.city)] ?? "00000" })),
      set_navigation: method(["destination"], (a) => {
        s.destination = str(a.destination, "destination");
        return { status: `Navigating to ${s.destination}` };
      }),
      check_tire_pressure: method([], () => {
        const t = tires();
        const avg = (t.frontLeftTirePressure + t.frontRightTirePressure + t.rearLeftTirePressure + t.rearRightTirePressure) / 4;
        return { ...t, healthy_tire_pressure: avg >= 30 && avg <= 35, car_info: long ? long.CAR_STATUS_METADATA_EXTENSION : {} };
      }),
      find_nearest_tire_shop: method([], () => ({ shopLocation: "456 Oakwood Avenue, Rivermist, 83214" })),
    },
  };
}
