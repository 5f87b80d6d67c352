import { type Gaps, engineConformance } from "./suite.js";
import { langgraphPostgres, langgraphSqlite } from "./layouts.js";

// migrate refuses a LangGraph source into ckpt's own store (cli/migrate.ts wantOf: "a LangGraph history goes to a
// LangGraph store"), so every test that migrates out of it into a ckpt store fails
const intoCkpt = "migrate refuses a LangGraph history into a ckpt store (exit 2)";
const gaps: Gaps = { "migrate out": intoCkpt, "kill + resume": intoCkpt, conflicts: intoCkpt };

engineConformance(langgraphSqlite, gaps);
engineConformance(langgraphPostgres, gaps);
