import { type Gaps, engineConformance } from "./suite.js";
import { langgraphPostgres, langgraphSqlite } from "./layouts.js";

// migrate refuses a LangGraph source into ckpt's own store ("a LangGraph history goes to a LangGraph store"), so the
// tests that migrate out of it into a ckpt store fail (kill + resume migrates into a LangGraph store instead)
const intoCkpt = "migrate refuses a LangGraph history into a ckpt store (exit 2)";
const gaps: Gaps = { "migrate out": intoCkpt, conflicts: intoCkpt };

engineConformance(langgraphSqlite, gaps);
engineConformance(langgraphPostgres, gaps);
