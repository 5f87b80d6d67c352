import { engineConformance } from "./suite.js";
import { folder, memory, postgres, redis, sqlite } from "./layouts.js";

engineConformance(memory);
engineConformance(sqlite);
engineConformance(redis);
engineConformance(postgres);
engineConformance(folder);
