import { engineConformance } from "./suite.js";
import { folder, memory, postgres, redis, sqlite } from "./layouts.js";

engineConformance(memory, {
  "kill + resume":
    "a memory: store lives in one process, so the killed run (another process) cannot open it; no capability says so",
});
engineConformance(sqlite);
engineConformance(redis);
engineConformance(postgres);
engineConformance(folder);
