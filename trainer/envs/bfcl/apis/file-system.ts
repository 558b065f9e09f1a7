/**
 * GorillaFileSystem: an in-memory tree with a current directory and shell-like commands (BFCL func_doc
 * `gorilla_file_system.json`). Paths are one folder level at a time for cd/mv/cp, results are dicts such as
 * {"current_working_directory": ...} or {"error": "..."} in the wording of the command-line tools they imitate.
 * State compared by BFCL: the tree (names, file contents), not the current directory.
 */
import { ApiError, method, num, str } from "./api-types";
import { longContextData, type ApiOptions } from "./long-context";
import type { PeekableFileSystem } from "./envtuning-messages";

interface FileNode {
  kind: "file";
  name: string;
  content: string;
}
interface DirNode {
  kind: "dir";
  name: string;
  parent: DirNode | null;
  contents: Map<string, FileNode | DirNode>;
}
type Node = FileNode | DirNode;

const INVALID_NAME = /[|/\\?%*:"><]/;

function newDir(name: string, parent: DirNode | null): DirNode {
  return { kind: "dir", name, parent, contents: new Map() };
}

/**
 * Loads a scenario's tree. In long_context, as gorilla does, every file not named in FILES_TAIL_USED gets a long
 * text appended, and every folder without subfolders gets 30 extra empty image files.
 */
function loadDir(spec: Record<string, unknown>, dir: DirNode, longContext: boolean): DirNode {
  let bottommost = true;
  for (const [name, raw] of Object.entries(spec)) {
    const node = raw as { type?: string; content?: unknown; contents?: Record<string, unknown> };
    if (node.type === "directory") {
      bottommost = false;
      dir.contents.set(name, loadDir(node.contents ?? {}, newDir(name, dir), longContext));
    } else if (node.type === "file") {
      let content = String(node.content ?? "");
      if (longContext && !longContextData().FILES_TAIL_USED.includes(name)) content += longContextData().FILE_CONTENT_EXTENSION;
      dir.contents.set(name, { kind: "file", name, content });
    }
  }
  if (bottommost && longContext) {
    for (const name of longContextData().POPULATE_FILE_EXTENSION) {
      if (dir.contents.has(name)) throw new ApiError(`File '${name}' already exists in directory '${dir.name}'.`);
      dir.contents.set(name, { kind: "file", name, content: "" });
    }
  }
  return dir;
}

/** gorilla's Directory._add_file / _add_directory on a taken name. */
function existsError(item: Node, name: string, dir: DirNode): ApiError {
  return new ApiError(`${item.kind === "file" ? "File" : "Directory"} '${name}' already exists in directory '${dir.name}'.`);
}

function snapshot(node: Node): unknown {
  if (node.kind === "file") return { name: node.name, content: node.content };
  return { name: node.name, contents: Object.fromEntries([...node.contents].map(([k, v]) => [k, snapshot(v)])) };
}

/**
 * The node gorilla's mv / cp put at the destination: a new File with the content, or a new Directory whose contents
 * are the source's own mapping (mv) or a copy of that mapping (cp) — the children themselves are shared, not copied,
 * and keep their old parent, as in gorilla's object graph.
 */
function placedNode(node: Node, name: string, parent: DirNode, verb: "mv" | "cp"): Node {
  if (node.kind === "file") return { kind: "file", name, content: node.content };
  return { kind: "dir", name, parent, contents: verb === "mv" ? node.contents : new Map(node.contents) };
}

/** Python's str.splitlines() for the separators file contents use. */
function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function createFileSystem(config: Record<string, unknown>, options: ApiOptions): PeekableFileSystem {
  let root = newDir("/", null);
  const rootSpec = config.root as Record<string, { contents?: Record<string, unknown> }> | undefined;
  if (rootSpec && Object.keys(rootSpec).length > 0) {
    const name = Object.keys(rootSpec)[0];
    root = loadDir(structuredClone(rootSpec[name].contents ?? {}), newDir(name, null), options.longContext);
  }
  let cwd = root;

  const fork = options.fork === "envtuning";
  const navigate = (path: string | null): DirNode | { error: string } => {
    if (path === null || path === ".") return cwd;
    if (path === "/") return root;
    let dir = path.startsWith("/") ? root : cwd;
    for (const part of path.replace(/^\/+|\/+$/g, "").split("/")) {
      // gorilla's Directory knows "." as itself; EnvTuning's older one does not.
      const next = part === "." && !fork ? dir : dir.contents.get(part);
      if (!next || next.kind !== "dir") return { error: `cd: '${path}': No such file or directory` };
      dir = next;
    }
    return dir;
  };
  const fileHere = (name: string): FileNode | undefined => {
    const n = cwd.contents.get(name);
    return n?.kind === "file" ? n : undefined;
  };

  const moveOrCopy = (verb: "mv" | "cp", source: string, destination: string) => {
    const item = cwd.contents.get(source);
    const past = verb === "mv" ? "moved" : "copied";
    if (!item) return { error: `${verb}: cannot ${verb === "mv" ? "move" : "copy"} '${source}': No such file or directory` };
    if (destination.includes("/")) return { error: `${verb}: path not allowed in destination. Provide only a file or directory name.` };
    const dest = cwd.contents.get(destination);
    if (dest) {
      if (dest.kind !== "dir")
        return { error: `${verb}: cannot ${verb === "mv" ? "move" : "copy"} '${source}' to '${destination}': Not a directory` };
      if (dest.contents.has(source)) {
        // gorilla's cp looks for "dest/source" among the names (never there), so its _add_file raises instead.
        if (verb === "cp") throw existsError(item, source, dest);
        return { error: `mv: cannot move '${source}' to '${destination}/${source}': File exists` };
      }
      if (verb === "mv") cwd.contents.delete(source);
      dest.contents.set(source, placedNode(item, source, dest, verb));
      return { result: `'${source}' ${past} to '${destination}/${source}'` };
    }
    if (verb === "mv") cwd.contents.delete(source);
    cwd.contents.set(destination, placedNode(item, destination, cwd, verb));
    return { result: `'${source}' ${past} to '${destination}'` };
  };

  return {
    className: "GorillaFileSystem",
    state: () => snapshot(root),
    itemKind: (name) => cwd.contents.get(name)?.kind,
    methods: {
      pwd: method([], () => {
        const parts: string[] = [];
        for (let d: DirNode | null = cwd; d; d = d.parent) parts.push(d.name);
        return { current_working_directory: `/${parts.reverse().join("/")}` };
      }),
      ls: method([["a", false]], (a) => ({
        current_directory_content: [...cwd.contents.keys()].filter((n) => a.a === true || !n.startsWith(".")),
      })),
      cd: method(["folder"], (a) => {
        let folder = str(a.folder, "folder");
        // BFCL v4 goes one level at a time; EnvTuning's fork follows a path of existing folders.
        if (!fork) {
          folder = folder.replace(/\/+$/, "") || "/";
          if (![".", "..", "/"].includes(folder) && folder.includes("/")) {
            return { error: `cd: ${folder}: Unsupported path. Only one folder level at a time is supported.` };
          }
        }
        if (folder === "..") {
          if (cwd.parent) cwd = cwd.parent;
          else return { error: "Current directory is already the root. Cannot go back." };
          return {};
        }
        const target = navigate(folder);
        if ("error" in target) return target;
        cwd = target;
        return { current_working_directory: target.name };
      }),
      mkdir: method(["dir_name"], (a) => {
        const name = str(a.dir_name, "dir_name");
        if (INVALID_NAME.test(name)) return { error: `mkdir: cannot create directory '${name}': Invalid character` };
        if (cwd.contents.has(name)) return { error: `mkdir: cannot create directory '${name}': File exists` };
        cwd.contents.set(name, newDir(name, cwd));
        return null;
      }),
      touch: method(["file_name"], (a) => {
        const name = str(a.file_name, "file_name");
        if (INVALID_NAME.test(name)) return { error: `touch: cannot touch '${name}': Invalid character` };
        if (cwd.contents.has(name)) return { error: `touch: cannot touch '${name}': File exists` };
        cwd.contents.set(name, { kind: "file", name, content: "" });
        return null;
      }),
      echo: method(["content", ["file_name", null]], (a) => {
        const content = str(a.content, "content");
        if (a.file_name === null || a.file_name === undefined) return { terminal_output: content };
        const name = str(a.file_name, "file_name");
        if (INVALID_NAME.test(name)) return { error: `echo: cannot write to '${name}': Invalid character` };
        if (name === "") return { terminal_output: content };
        const f = cwd.contents.get(name);
        // EnvTuning's fork creates a missing file and refuses a folder; BFCL v4 refuses the one and fails on the other.
        if (!f && fork) {
          cwd.contents.set(name, { kind: "file", name, content });
          return null;
        }
        if (!f) return { error: `echo: cannot write to '${name}': No such file` };
        if (f.kind !== "file" && fork) return { error: `echo: '${name}': Is a directory. Cannot write to directory.` };
        if (f.kind !== "file") throw new ApiError("'Directory' object has no attribute '_write'");
        f.content = content;
        return null;
      }),
      cat: method(["file_name"], (a) => {
        const name = str(a.file_name, "file_name");
        if (INVALID_NAME.test(name)) return { error: `cat: '${name}': Invalid character` };
        const n = cwd.contents.get(name);
        if (!n) return { error: `cat: '${name}': No such file or directory` };
        return n.kind === "file" ? { file_content: n.content } : { error: `cat: '${name}': Is a directory` };
      }),
      find: method(
        [
          ["path", "."],
          ["name", null],
        ],
        (a) => {
          const path = str(a.path ?? ".", "path");
          const name = a.name === null || a.name === undefined ? null : str(a.name, "name");
          // EnvTuning's fork searches the current folder whatever the path (which only prefixes the results).
          const start = fork ? cwd : navigate(path);
          if ("error" in start) return { error: start.error.replace(/^cd:/, "find:") };
          const matches: string[] = [];
          const walk = (dir: DirNode, base: string) => {
            for (const [itemName, item] of dir.contents) {
              const p = `${base}/${itemName}`;
              if (name === null || itemName.includes(name)) matches.push(p);
              if (item.kind === "dir") walk(item, p);
            }
          };
          walk(start, path.replace(/\/+$/, ""));
          return { matches };
        },
      ),
      wc: method(["file_name", ["mode", "l"]], (a) => {
        const mode = str(a.mode, "mode");
        if (!["l", "w", "c"].includes(mode)) return { error: `wc: invalid mode '${mode}'` };
        const f = fileHere(str(a.file_name, "file_name"));
        if (!f) return { error: `wc: ${String(a.file_name)}: No such file or directory` };
        if (mode === "l") return { count: splitLines(f.content).length, type: "lines" };
        if (mode === "w") return { count: f.content.split(/\s+/).filter(Boolean).length, type: "words" };
        return { count: [...f.content].length, type: "characters" };
      }),
      sort: method(["file_name"], (a) => {
        const f = fileHere(str(a.file_name, "file_name"));
        if (!f) return { error: `sort: ${String(a.file_name)}: No such file or directory` };
        // Python sorts str by code point, as JS does for strings without astral characters.
        return { sorted_content: splitLines(f.content).sort().join("\n") };
      }),
      grep: method(["file_name", "pattern"], (a) => {
        const f = fileHere(str(a.file_name, "file_name"));
        if (!f) return { error: `grep: ${String(a.file_name)}: No such file or directory` };
        const pattern = str(a.pattern, "pattern");
        return { matching_lines: splitLines(f.content).filter((l) => l.includes(pattern)) };
      }),
      du: method([["human_readable", false]], (a) => {
        const size = (n: Node): number =>
          n.kind === "file" ? Buffer.byteLength(n.content, "utf8") : [...n.contents.values()].reduce((s, c) => s + size(c), 0);
        let total = size(cwd);
        if (a.human_readable !== true) return { disk_usage: `${total} bytes` };
        for (const unit of ["B", "KB", "MB", "GB", "TB"]) {
          if (total < 1024) return { disk_usage: `${total.toFixed(2)} ${unit}` };
          total /= 1024;
        }
        return { disk_usage: `${total.toFixed(2)} PB` };
      }),
      tail: method(["file_name", ["lines", 10]], (a) => {
        const f = fileHere(str(a.file_name, "file_name"));
        if (!f) return { error: `tail: ${String(a.file_name)}: No such file or directory` };
        const lines = splitLines(f.content);
        const n = Math.min(num(a.lines, "lines"), lines.length);
        // Python's content[-0:] is the whole list, so tail(lines=0) shows everything, as BFCL does.
        return { last_lines: lines.slice(n === 0 ? 0 : -n).join("\n") };
      }),
      diff: method(["file_name1", "file_name2"], (a) => {
        const f1 = fileHere(str(a.file_name1, "file_name1"));
        const f2 = fileHere(str(a.file_name2, "file_name2"));
        if (!f1 || !f2) return { error: `diff: ${String(a.file_name1)} or ${String(a.file_name2)}: No such file or directory` };
        const l1 = splitLines(f1.content);
        const l2 = splitLines(f2.content);
        const out: string[] = [];
        for (let i = 0; i < Math.min(l1.length, l2.length); i++) if (l1[i] !== l2[i]) out.push(`- ${l1[i]}\n+ ${l2[i]}`);
        return { diff_lines: out.join("\n") };
      }),
      mv: method(["source", "destination"], (a) => moveOrCopy("mv", str(a.source, "source"), str(a.destination, "destination"))),
      cp: method(["source", "destination"], (a) => moveOrCopy("cp", str(a.source, "source"), str(a.destination, "destination"))),
      rm: method(["file_name"], (a) => {
        const name = str(a.file_name, "file_name");
        if (!cwd.contents.delete(name)) return { error: `rm: cannot remove '${name}': No such file or directory` };
        return { result: `'${name}' removed` };
      }),
      rmdir: method(["dir_name"], (a) => {
        const name = str(a.dir_name, "dir_name");
        const d = cwd.contents.get(name);
        if (!d) return { error: `rmdir: cannot remove '${name}': No such file or directory` };
        if (d.kind !== "dir") return { error: `rmdir: cannot remove '${name}': Not a directory` };
        if (d.contents.size > 0) return { error: `rmdir: cannot remove '${name}': Directory not empty` };
        cwd.contents.delete(name);
        return { result: `'${name}' removed` };
      }),
    },
  };
}

export { ApiError };
