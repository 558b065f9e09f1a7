/**
 * EnvTuning's tool error messages. AWorld-RL's EnvTuning trains on its own copy of BFCL's API classes in which the
 * error messages were rewritten to say what to do next ("Paths are not allowed. Specify only file name in current
 * directory.", "You can use 'list_all_airports' to get all available airports ..."): part of its "tune the
 * environment" idea, since an actionable error lets the policy recover within the episode. This layer gives gorilla's
 * classes (ported in this folder) EnvTuning's wording: a check EnvTuning makes first (a path where only a name is
 * allowed), and each of gorilla's error results reworded as EnvTuning's code words it. Behaviour and state stay
 * gorilla's. tests/fixtures/parity/envtuning-messages.json holds both systems' answers to the same calls.
 */
import { ApiError, type ApiInstance, type ApiMethod } from "./api-types";

/** What the file system's rewording needs to know about the current directory. */
export interface PeekableFileSystem extends ApiInstance {
  itemKind(name: string): "file" | "dir" | undefined;
}

type Args = Record<string, unknown>;
/** EnvTuning's answer for a call, or undefined to keep gorilla's. `result` is gorilla's result (or its ApiError). */
type Rewrite = { before?: (a: Args) => unknown; after?: (a: Args, result: unknown) => unknown };

const INVALID_CHARACTERS = `cannot contain: | / \\ ? % * : > < "`;
const errorOf = (result: unknown): string | undefined =>
  result !== null && typeof result === "object" && typeof (result as { error?: unknown }).error === "string"
    ? (result as { error: string }).error
    : undefined;
const hasPath = (v: unknown): boolean => typeof v === "string" && v.includes("/");

function fileSystemRewrites(fs: PeekableFileSystem): Record<string, Rewrite> {
  const kind = (v: unknown) => (typeof v === "string" ? fs.itemKind(v) : undefined);
  const noPath = (verb: string, name: unknown, what: string) => ({
    error: `${verb}: '${String(name)}': Paths are not allowed. Specify only ${what} in current directory.`,
  });
  const invalidName = (verb: string, name: unknown, noun: "File" | "Directory") => ({
    error: `${verb}: '${String(name)}': Invalid character. ${noun} names ${INVALID_CHARACTERS}`,
  });
  /** wc, sort, grep, tail: a directory or a missing file, each with its own sentence. */
  const readFile = (verb: string, dirSentence: string, pathWhat = "file name"): Rewrite => ({
    // wc checks its mode before the path (gorilla's invalid-mode message is EnvTuning's too).
    before: (a) =>
      hasPath(a.file_name) && !(verb === "wc" && !["l", "w", "c"].includes(String(a.mode ?? "l")))
        ? noPath(verb, a.file_name, pathWhat)
        : undefined,
    after: (a, result) => {
      if (!errorOf(result)?.endsWith("No such file or directory")) return undefined;
      return kind(a.file_name) === "dir"
        ? { error: `${verb}: '${String(a.file_name)}': Is a directory. ${dirSentence}` }
        : { error: `${verb}: '${String(a.file_name)}': No such file in current directory.` };
    },
  });
  const createItem = (
    verb: "mkdir" | "touch",
    arg: "dir_name" | "file_name",
    noun: "File" | "Directory",
    exists: (n: string) => string,
  ): Rewrite => ({
    before: (a) => (hasPath(a[arg]) ? noPath(verb, a[arg], `${noun === "File" ? "file" : "directory"} name`) : undefined),
    after: (a, result) => {
      const error = errorOf(result);
      if (error?.endsWith("Invalid character")) return invalidName(verb, a[arg], noun);
      if (error?.endsWith("File exists")) return { error: exists(String(a[arg])) };
      return undefined;
    },
  });
  const moveOrCopy = (verb: "mv" | "cp"): Rewrite => ({
    before: (a) =>
      hasPath(a.source)
        ? {
            error: `${verb}: '${String(a.source)}': Paths are not allowed in source. Specify only file/directory name in current directory.`,
          }
        : undefined,
    after: (a, result) => {
      const error = errorOf(result);
      if (error === undefined) return undefined;
      if (error.endsWith("No such file or directory"))
        return { error: `${verb}: '${String(a.source)}': No such file or directory in current directory.` };
      if (error.includes("path not allowed in destination"))
        return {
          error: `${verb}: '${String(a.destination)}': Paths are not allowed in destination. Specify only file/directory name in current directory.`,
        };
      if (verb === "mv" && error.endsWith("File exists"))
        return { error: error.replace(/File exists$/, "File already exists in destination directory.") };
      if (verb === "mv" && error.endsWith("Not a directory"))
        return { error: `mv: '${String(a.destination)}': Destination exists but is not a directory. Cannot overwrite existing file.` };
      return undefined;
    },
  });
  return {
    cd: {
      after: (a, result) => {
        if (!errorOf(result)?.startsWith("cd:")) return undefined;
        return hasPath(a.folder)
          ? { error: `cd: '${String(a.folder)}': Paths are not allowed. Use 'cd' to navigate one directory at a time.` }
          : { error: `cd: '${String(a.folder)}': No such directory in current location.` };
      },
    },
    mkdir: createItem("mkdir", "dir_name", "Directory", (n) => `mkdir: cannot create directory '${n}': File or directory already exists`),
    touch: createItem("touch", "file_name", "File", (n) => `touch: '${n}': File or directory already exists`),
    echo: {
      before: (a) =>
        typeof a.file_name === "string" && a.file_name !== "" && hasPath(a.file_name)
          ? noPath("echo", a.file_name, "file name")
          : undefined,
      after: (a, result) => (errorOf(result)?.endsWith("Invalid character") ? invalidName("echo", a.file_name, "File") : undefined),
    },
    cat: {
      after: (a, result) => {
        const error = errorOf(result);
        if (error === undefined || error.endsWith("Invalid character")) return undefined;
        return { error: error.replace(`cat: '${String(a.file_name)}':`, `cat: ${String(a.file_name)}:`) };
      },
    },
    wc: readFile("wc", "Cannot count directory contents."),
    sort: readFile("sort", "Cannot sort directory contents.", "the file name"),
    grep: readFile("grep", "Cannot search in directory."),
    tail: readFile("tail", "Cannot display directory contents.", "the file name"),
    diff: {
      before: (a) =>
        hasPath(a.file_name1) || hasPath(a.file_name2)
          ? { error: "diff: Paths are not allowed. Specify only file names in current directory." }
          : undefined,
      after: (a, result) => {
        if (errorOf(result) === undefined) return undefined;
        const [n1, n2] = [String(a.file_name1), String(a.file_name2)];
        const [k1, k2] = [kind(n1), kind(n2)];
        if (!k1 && !k2) return { error: `diff: '${n1}' and '${n2}': Both files not found in current directory.` };
        if (!k1 || !k2) return { error: `diff: '${k1 ? n2 : n1}': No such file in current directory.` };
        if (k1 === "dir" && k2 === "dir") return { error: `diff: '${n1}' and '${n2}': Both are directories. Cannot compare directories.` };
        return { error: `diff: '${k1 === "dir" ? n1 : n2}': Is a directory. Cannot compare directory with file.` };
      },
    },
    mv: moveOrCopy("mv"),
    cp: moveOrCopy("cp"),
    rm: {
      before: (a) => (hasPath(a.file_name) ? noPath("rm", a.file_name, "file/directory name") : undefined),
      after: (a, result) =>
        errorOf(result)?.endsWith("No such file or directory")
          ? { error: `rm: '${String(a.file_name)}': No such file or directory in current directory.` }
          : undefined,
    },
    rmdir: {
      before: (a) => (hasPath(a.dir_name) ? noPath("rmdir", a.dir_name, "directory name") : undefined),
      after: (a, result) => {
        const error = errorOf(result);
        if (error?.endsWith("Directory not empty"))
          return { error: `rmdir: failed to remove '${String(a.dir_name)}': Directory not empty` };
        if (error?.endsWith("No such file or directory"))
          return { error: `rmdir: '${String(a.dir_name)}': No such directory in current directory.` };
        return undefined;
      },
    },
  };
}

const VEHICLE_REWRITES: Record<string, Rewrite> = {
  get_outside_temperature_from_weather_com: {
    after: () => ({
      error: "Weather.com service is currently unavailable. Please try using get_outside_temperature_from_google() instead.",
    }),
  },
  estimate_distance: {
    after: (a, result) =>
      errorOf(result) === "distance not found in database."
        ? {
            ...(result as object),
            error:
              `Invalid zipcode pair: '${String(a.cityA)}' to '${String(a.cityB)}'. Please verify both zipcodes are correct and supported. ` +
              "You can use 'get_zipcode_based_on_city' to find the correct zipcode for a city name.",
          }
        : undefined,
  },
};

/** EnvTuning's TravelAPI checks airport codes against its list before looking the route up. */
const ENVTUNING_AIRPORTS = ["RMS", "SBK", "MPC", "SVP", "SHD", "CDG", "LHR", "SSV", "OKD", "WLB", "PEK", "HND", "HKG", "CIA", "CRH"];
const ENVTUNING_AIRPORT_LIST = [...ENVTUNING_AIRPORTS, "ATV", "PHV", "GFD", "SFO", "LAX", "JFK", "ORD", "BOS"];
const CURRENCIES = "USD, RMB, EUR, JPY, GBP, CAD, AUD, INR, RUB, BRL, MXN";

const TRAVEL_REWRITES: Record<string, Rewrite> = {
  get_flight_cost: {
    before: (a) => {
      const invalid = [
        ...(ENVTUNING_AIRPORT_LIST.includes(String(a.travel_from)) ? [] : [`departure airport '${String(a.travel_from)}'`]),
        ...(ENVTUNING_AIRPORT_LIST.includes(String(a.travel_to)) ? [] : [`destination airport '${String(a.travel_to)}'`]),
      ];
      if (invalid.length === 0) return undefined;
      throw new ApiError(
        `Invalid airport code(s): ${invalid.join(" and ")}. Please use valid airport codes. You can use 'list_all_airports' to get all ` +
          "available airports or 'get_nearest_airport_by_city' to find the correct airport code for a city.",
      );
    },
    after: (a, result) => {
      if (result instanceof ApiError && result.message === "No available route for the given airports.")
        throw new ApiError(`No available route from '${String(a.travel_from)}' to '${String(a.travel_to)}'.`);
      return undefined;
    },
  },
  compute_exchange_rate: {
    after: (a, result) => {
      if (result instanceof ApiError && result.message === "No available exchange rate for the given currencies.")
        throw new ApiError(
          `No available exchange rate for '${String(a.base_currency)}' to '${String(a.target_currency)}'. Supported currencies are: ${CURRENCIES}. ` +
            "Please check if the currency codes are correct.",
        );
      return undefined;
    },
  },
};

function isPeekable(inst: ApiInstance): inst is PeekableFileSystem {
  return typeof (inst as Partial<PeekableFileSystem>).itemKind === "function";
}

function rewritesFor(inst: ApiInstance): Record<string, Rewrite> {
  if (inst.className === "GorillaFileSystem" && isPeekable(inst)) return fileSystemRewrites(inst);
  if (inst.className === "VehicleControlAPI") return VEHICLE_REWRITES;
  if (inst.className === "TravelAPI") return TRAVEL_REWRITES;
  return {};
}

function reworded(m: ApiMethod, rewrite: Rewrite): ApiMethod {
  return {
    params: m.params,
    run(args) {
      const early = rewrite.before?.(args);
      if (early !== undefined) return early;
      let result: unknown;
      try {
        result = m.run(args);
      } catch (e) {
        const instead = e instanceof ApiError ? rewrite.after?.(args, e) : undefined;
        if (instead === undefined) throw e;
        return instead;
      }
      return rewrite.after?.(args, result) ?? result;
    },
  };
}

/** The instance with EnvTuning's messages; classes EnvTuning did not reword come back unchanged. */
export function withEnvTuningMessages(inst: ApiInstance): ApiInstance {
  const rewrites = rewritesFor(inst);
  const methods = Object.fromEntries(
    Object.entries(inst.methods).map(([name, m]) => [name, rewrites[name] ? reworded(m, rewrites[name]) : m]),
  );
  return { ...inst, methods, state: inst.state };
}
