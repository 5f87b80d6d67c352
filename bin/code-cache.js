// V8's compiled code of the bundled CLI (dist/bundle/) and of the schema validators (dist/generated/validators/),
// kept between runs: most of a short run's start-up is V8 compiling these files (issue #41). Node >= 22.1 does it
// itself (module.enableCompileCache, bin/ckpt.js); on Node 20 this file does the same for those two folders only.
//
// Safety: a cache file is used only when it was made from the same text: it holds a copy of the text it was made
// from, compared byte for byte with the file (V8 itself checks only the length). The copy costs a read from the page
// cache and a memcmp; a checksum would need node:zlib, whose loading cost a short run ~6-10M instructions. Each
// entry sits in a folder of its own per ckpt version, Node, install location and V8 flags (V8 refuses data made by
// another V8 or with other flags: the file is then made again); the folder must be the user's own (mode 700, not
// writable by others), and any failure to read or write the cache is ignored: a read-only install, a full disk or a
// missing folder only cost the compile time. A run that writes new data removes what it replaces and what was made
// from files that are gone (a rebuild's old chunks), so the folder holds one entry per file at most. An entry is
// named <file>-<length> and holds the text's length (4 bytes, little-endian), the text, then V8's data.
// CKPT_CODE_CACHE=0 turns it off; CKPT_CODE_CACHE=<folder> puts the cache there.
"use strict";
const {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} = require("node:fs");
const { dirname, join, sep } = require("node:path");

/** FNV-1a (32 bits) of a short string: names the folder of an install and its flags. */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** os.tmpdir() without loading node:os on POSIX (a short run's every module counts): the same rule as Node's. */
function tmpdir() {
  if (process.platform === "win32") return require("node:os").tmpdir();
  const path = process.env.TMPDIR || process.env.TMP || process.env.TEMP || "/tmp";
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** The cache folder for this ckpt version, Node, install and flags, created (mode 700) if needed; undefined when unusable. */
function cacheFolder(version, roots) {
  const setting = process.env.CKPT_CODE_CACHE;
  if (setting === "0" || setting === "false" || setting === "off") return undefined;
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const base = setting || join(tmpdir(), `ckpt-code-cache${uid === undefined ? "" : `-${uid}`}`);
  // V8 refuses code made under other flags: runs with other flags (NODE_OPTIONS, node --…) keep their own folder,
  // and so does each install (two copies of one version may hold other files)
  const where = [...roots, ...process.execArgv, process.env.NODE_OPTIONS ?? ""].join("\n");
  const dir = join(base, `${version}-node${process.versions.node}-${process.arch}-${fnv1a(where).toString(16)}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const d of [base, dir]) {
      const st = lstatSync(d);
      // the user's own folder that no one else can write to: a cache file is code that will run
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return undefined;
    }
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * Compile the CommonJS files under `roots` through V8's code cache (see above). Everything else is compiled by Node
 * as always. Returns false when no cache could be set up (nothing changed then).
 */
function useCodeCache(roots, version) {
  const dir = cacheFolder(version, roots);
  if (dir === undefined) return false;
  // node:module's Module, without loading node:module (on Node 20 that loads the ES module loader too)
  const Module = module.constructor;
  const vm = require("node:vm");
  const { isAscii } = require("node:buffer");
  const pending = [];
  /** Node's require() of a file under `roots`, compiled with its cached code when there is some. */
  function load(mod, filename) {
    const bytes = readFileSync(filename);
    // an ASCII file (the bundle is) becomes a one-byte string without decoding UTF-8
    const content = isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.toString("utf8");
    const name = filename.slice(filename.lastIndexOf(sep) + 1);
    const key = join(dir, `${name}-${bytes.length}`);
    let cachedData;
    try {
      const entry = readFileSync(key);
      // made from this very text, else not used (and made again)
      if (entry.length > 4 + bytes.length && entry.readUInt32LE(0) === bytes.length) {
        if (entry.subarray(4, 4 + bytes.length).equals(bytes)) cachedData = entry.subarray(4 + bytes.length);
      }
    } catch {}
    const script = new vm.Script(Module.wrap(content), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (cachedData === undefined || script.cachedDataRejected) pending.push({ name, key, script, bytes });
    const fn = script.runInThisContext({ displayErrors: true });
    const req = function require(id) {
      return mod.require(id);
    };
    req.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    req.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
    req.main = process.mainModule;
    req.extensions = Module._extensions;
    req.cache = Module._cache;
    fn.call(mod.exports, mod.exports, req, mod, filename, dirname(filename));
  }
  const original = Module._extensions[".js"];
  Module._extensions[".js"] = function js(mod, filename, ...rest) {
    if (!roots.some((r) => filename.startsWith(r))) return original.call(this, mod, filename, ...rest);
    return load(mod, filename);
  };
  // written as the process ends, so the data holds the functions this run compiled, not only the top level
  process.once("exit", () => {
    if (pending.length === 0) return;
    for (const { key, script, bytes } of pending) {
      const tmp = `${key}.${process.pid}.tmp`;
      try {
        const data = script.createCachedData();
        const head = Buffer.alloc(4);
        head.writeUInt32LE(bytes.length, 0);
        const fd = openSync(tmp, "wx", 0o600);
        try {
          writeSync(fd, head);
          writeSync(fd, bytes);
          writeSync(fd, data);
        } finally {
          closeSync(fd);
        }
        renameSync(tmp, key);
      } catch {
        try {
          rmSync(tmp, { force: true });
        } catch {}
      }
    }
    prune(dir, roots, new Map(pending.map((p) => [p.name, p.key])));
  });
  return true;
}

/** Remove the entries that `written` replaced (same file, other text) and those of files no longer in `roots`. */
function prune(dir, roots, written) {
  try {
    for (const entry of readdirSync(dir)) {
      if (entry.endsWith(".tmp")) continue; // another run's, being written
      const m = /^(.*)-\d+$/.exec(entry);
      const name = m?.[1];
      const kept = name === undefined ? undefined : written.get(name);
      // not <file>-<length> (an older ckpt's entry), replaced, or of a file that is gone
      const stale =
        name === undefined ||
        (kept !== undefined ? join(dir, entry) !== kept : !roots.some((r) => existsSync(join(r, name))));
      if (stale) rmSync(join(dir, entry), { force: true });
    }
  } catch {}
}

module.exports = { useCodeCache };
