// node --import ./test/helpers/zod3-register.mjs …: load `ai` against zod 3.25 (see zod3-hooks.mjs)
import { register } from "node:module";
register("./zod3-hooks.mjs", import.meta.url);
