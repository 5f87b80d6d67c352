/**
 * The one URI redactor: everything ckpt prints, writes into a journal or sends as --json passes a URI through
 * `redactUri` first. It removes
 * - the password of the user-info (`scheme://user:secret@host` → `scheme://user:***@host`);
 * - a user-info that is a bare token where the scheme uses it as one (`redis://TOKEN@host` → `redis://***@host`:
 *   Redis has no user without a password in a URL, so the lone part is the secret); a plain user name
 *   (`postgres://alice@host/db`) is not a secret and is kept, and a URI without a password gains no `:***`;
 * - the value of every secret-like query parameter (`password=`, `token=`, `api_key=`, `secret=`, …), in any
 *   scheme, including `file:` / `sqlite:` style URIs.
 * The rest of the text is kept byte for byte (no re-encoding), so a redacted URI still reads as the one typed.
 */

/** Query parameter names whose value is a secret. */
const SECRET_PARAM =
  /(pass|pwd|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|credential|auth|signature|^sig$|^key$)/i;
/** Schemes whose lone user-info (no ':') is a password or token. */
const TOKEN_USERINFO = /^(rediss?|valkeys?)$/i;

/** A host (name, IPv4, [IPv6]) with an optional port, as the whole of an authority after its user-info. */
const HOST = /^(\[[0-9a-f:.]*\]|[a-z0-9._~%!$&'()*+,;=-]+)(:\d*)?$/i;

/**
 * Where the user-info of `scheme://user:password@host…` ends (the index of its `@`), or -1 when there is none. A
 * password may hold `#`, `/`, `?` or `@` unencoded (it must be percent-encoded, but people paste what they have):
 * the user-info is then everything between `//` and the last `@` before the host, found before any URL parse.
 * - `@` before the first `/`, `?` or `#`: the last such `@` (the URL standard's rule: `u:a@b@host`);
 * - else an `@` before the first `#` (in what would be the path or query: these URIs never hold one there), followed
 *   by a host: the password held a `/` or `?`;
 * - else an `@` after the first `#` followed by a host, when what precedes that `#` is `user:password` (a `:` not
 *   followed by a port number), or the `@`'s host is followed by a path or query: the password held a `#` — never
 *   a thread address's `#thread@checkpoint` after a host (`//host:5432/db#t1@1f0a…`).
 */
export function userinfoEnd(uri: string): number {
  const m = /^[a-z][a-z0-9+.-]*:\/\//i.exec(uri);
  if (!m) return -1;
  const start = m[0].length;
  const rest = uri.slice(start);
  const delim = rest.search(/[/?#]/);
  const end = delim < 0 ? rest.length : delim;
  const first = rest.lastIndexOf("@", end - 1);
  if (first >= 0 && end > 0) return start + first;
  // the host after an '@' at i: up to the next '/', '?', '#' or the end; and what follows it
  const after = (i: number) => {
    const tail = rest.slice(i + 1);
    const d = tail.search(/[/?#]/);
    return { host: d < 0 ? tail : tail.slice(0, d), next: d < 0 ? "" : tail[d]! };
  };
  const hash = rest.indexOf("#");
  const beforeFragment = hash < 0 ? rest.length : hash;
  for (let i = rest.lastIndexOf("@", beforeFragment - 1); i >= 0; i = rest.lastIndexOf("@", i - 1))
    if (HOST.test(after(i).host)) return start + i;
  if (hash < 0) return -1;
  const pre = rest.slice(0, hash);
  const colon = pre.indexOf(":");
  const userPassword = !pre.includes("/") && colon >= 0 && !/^\d*$/.test(pre.slice(colon + 1));
  for (let i = rest.indexOf("@", hash); i >= 0; i = rest.indexOf("@", i + 1)) {
    const { host, next } = after(i);
    if (HOST.test(host) && (userPassword || next === "/" || next === "?")) return start + i;
  }
  return -1;
}

export function redactUri(uri: string): string {
  const at = userinfoEnd(uri);
  let out = uri;
  if (at >= 0) {
    const schemeEnd = uri.indexOf("://");
    const scheme = uri.slice(0, schemeEnd);
    const auth = uri.slice(schemeEnd + 3, at);
    const colon = auth.indexOf(":");
    const user = colon >= 0 ? auth.slice(0, colon) : auth;
    // a user name never holds '#', '/', '?' or '@' unencoded: such a user-info is all secret
    const kept = /[#/?@]/.test(user)
      ? "***"
      : colon >= 0
        ? `${user}:***`
        : TOKEN_USERINFO.test(scheme) && auth !== ""
          ? "***"
          : auth;
    out = `${scheme}://${kept}${uri.slice(at)}`;
  }
  const q = out.indexOf("?");
  if (q >= 0) {
    const hash = out.indexOf("#", q);
    const end = hash >= 0 ? hash : out.length;
    const query = out
      .slice(q + 1, end)
      .split("&")
      .map((pair) => {
        const eq = pair.indexOf("=");
        if (eq < 0) return pair;
        let name = pair.slice(0, eq);
        try {
          name = decodeURIComponent(name.replace(/\+/g, " "));
        } catch {
          /* keep it raw */
        }
        return SECRET_PARAM.test(name) && eq < pair.length - 1 ? `${pair.slice(0, eq)}=***` : pair;
      })
      .join("&");
    out = out.slice(0, q + 1) + query + out.slice(end);
  }
  return out;
}

/** Redact every URI inside a free text (an error message from a client library may quote the connection URL). */
export function redactText(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>()]+/gi, (m) => redactUri(m));
}
