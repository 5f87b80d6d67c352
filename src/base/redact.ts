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

export function redactUri(uri: string): string {
  let out = uri.replace(/^([a-z][a-z0-9+.-]*):\/\/([^@/?#]*)@/i, (_m, scheme: string, auth: string) => {
    const colon = auth.indexOf(":");
    if (colon >= 0) return `${scheme}://${auth.slice(0, colon)}:***@`;
    if (TOKEN_USERINFO.test(scheme) && auth !== "") return `${scheme}://***@`;
    return `${scheme}://${auth}@`;
  });
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
