/** Escaping for the two places user text meets markup: HTML text/attributes, and JSON inside a <script> element. */

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text or attribute value → HTML (all five special characters). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * A JSON text made safe to sit inside `<script type="application/json">`: the element ends at the first `</script`
 * and `<!--` switches the parser into an escaped state, so `</` is written `<\/` and `<!--` as `<\u0021--` — both
 * legal JSON string escapes (a `<` can only occur inside a JSON string), so JSON.parse gives back the same value.
 */
export function jsonForScript(json: string): string {
  return json.replace(/<\//g, "<\\/").replace(/<!--/g, "<\\u0021--");
}
