import { engineConformance } from "./suite.js";
import { openaiSession } from "./layouts.js";

engineConformance(openaiSession, {
  refusals: "prune --dry-run plans a store that cannot be pruned (exit 0, not 2)",
});
