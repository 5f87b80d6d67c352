import { type Gaps, engineConformance } from "./suite.js";
import { mastraLibsql, mastraPostgres } from "./layouts.js";

const gaps: Gaps = { refusals: "prune --dry-run plans a store that cannot be pruned (exit 0, not 2)" };

engineConformance(mastraLibsql, gaps);
engineConformance(mastraPostgres, gaps);
