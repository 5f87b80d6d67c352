/**
 * Module resolution hook: every `zod` / `zod/…` import resolves to the `zod3` dev alias (zod@3.25.x), so the
 * real `ai` package runs its schemas the way a deep-agent install (ai@6 + zod@^3.25) does.
 */
export async function resolve(specifier, context, next) {
  if (specifier === "zod" || specifier.startsWith("zod/")) return next(`zod3${specifier.slice(3)}`, context);
  return next(specifier, context);
}
