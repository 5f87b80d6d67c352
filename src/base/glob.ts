/** Globs over thread ids (`--match`: prune, stats, delete). */
/**
 * A `--match` glob over thread ids, which are not paths: `*` is any run of characters (`/`, `:`, `#`, a leading `.`
 * included), `?` any one character, `[abc]` / `[a-z]` / `[!a]` one of a set; `\` makes the next character plain;
 * everything else stands for itself. The whole id must match. (`user*` matches `user:42/session#1`; `*` every id.)
 */
export function idGlob(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\" && i + 1 < glob.length) re += escapeRe(glob[++i]!);
    else if (c === "*") re += "[\\s\\S]*";
    else if (c === "?") re += "[\\s\\S]";
    else if (c === "[" && glob.indexOf("]", i + 2) > i) {
      const end = glob.indexOf("]", i + 2);
      let set = glob.slice(i + 1, end);
      const negated = set[0] === "!" || set[0] === "^";
      if (negated) set = set.slice(1);
      re += `[${negated ? "^" : ""}${set.replace(/[\\\]^]/g, "\\$&")}]`;
      i = end;
    } else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`, "u");
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
