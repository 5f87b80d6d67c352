import { engineConformance } from "./suite.js";
import { mastraLibsql, mastraPostgres } from "./layouts.js";

engineConformance(mastraLibsql);
engineConformance(mastraPostgres);
