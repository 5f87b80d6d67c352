import type { OpenedStore } from "./index.js";
import type { SaverUri } from "./uri.js";

/**
 * The URI of an opened store with the layout it was found to hold named (`?layout=ckpt` on a database of ckpt's own),
 * so that opening it again (migrate's extra writers) does not ask the database for its tables again: a PostgreSQL
 * store opens on one connection instead of three. Any other store's URI is returned as it is.
 */
export function uriOfLayout(o: OpenedStore): SaverUri {
  const u = o.uri;
  if (o.layout !== "ckpt" || (u.kind !== "postgres" && u.kind !== "sqlite") || u.params.has("layout")) return u;
  const params = new URLSearchParams(u.params);
  params.set("layout", "ckpt");
  return { ...u, params };
}
