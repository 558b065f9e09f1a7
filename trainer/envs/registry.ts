/**
 * Environment registry: the name in a run config -> a factory. To add an environment, import its factory and add
 * one line to ENVIRONMENTS. Unknown names fail with the list of valid ones (verl's registries do the same).
 */
import type { Environment } from "./types";
import { createSimulatedEnvironment } from "./simulated/environment";
import { createBfclEnvironment } from "./bfcl/index";
import { createSgdEnvironment } from "./sgd/index";
import { createTau2RetailEnvironment } from "./tau2/index";
import { createUserRlEnvironment } from "./userrl/index";
import { createTauGymEnvironment } from "./userrl/tau/index";
import { createGuessEnvironment } from "./guess-number/index";

/** `config` is the environment's own section of the run config; each factory validates it with its zod schema. */
type EnvironmentFactory = (config?: Record<string, unknown>) => Environment;

const ENVIRONMENTS: Record<string, EnvironmentFactory> = {
  simulated: (config) => createSimulatedEnvironment(config) as Environment,
  sgd: (config) => createSgdEnvironment(config) as Environment,
  bfcl: (config) => createBfclEnvironment(config) as Environment,
  "tau2-retail": (config) => createTau2RetailEnvironment(config as Parameters<typeof createTau2RetailEnvironment>[0]) as Environment,
  "userrl-telepathy": (config) => createUserRlEnvironment("telepathy", config) as Environment,
  "userrl-turtle": (config) => createUserRlEnvironment("turtle", config) as Environment,
  "userrl-function": (config) => createUserRlEnvironment("function", config) as Environment,
  "userrl-intention": (config) => createUserRlEnvironment("intention", config) as Environment,
  "userrl-persuade": (config) => createUserRlEnvironment("persuade", config) as Environment,
  "userrl-search": (config) => createUserRlEnvironment("search", config) as Environment,
  "userrl-travel": (config) => createUserRlEnvironment("travel", config) as Environment,
  "userrl-tau": (config) => createTauGymEnvironment(config) as Environment,
  "guess-number": (config) => createGuessEnvironment(config) as Environment,
};

export class UnknownEnvironmentError extends Error {
  constructor(readonly requested: string) {
    super(`Unknown environment "${requested}". Valid names: ${listEnvironments().join(", ")}.`);
    this.name = "UnknownEnvironmentError";
  }
}

export function listEnvironments(): string[] {
  return Object.keys(ENVIRONMENTS).sort();
}

export function getEnvironment(name: string, config?: Record<string, unknown>): Environment {
  const factory = Object.prototype.hasOwnProperty.call(ENVIRONMENTS, name) ? ENVIRONMENTS[name] : undefined;
  if (!factory) throw new UnknownEnvironmentError(name);
  return factory(config);
}
