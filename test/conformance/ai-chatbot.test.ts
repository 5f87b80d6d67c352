import { type Gaps, engineConformance } from "./suite.js";
import { aiChatbotPostgres, aiChatbotSqlite } from "./layouts.js";

const gaps: Gaps = {
  "migrate in": "migrate writes a Chat SDK store only from another Chat SDK database (exit 2 from a ckpt store)",
};

engineConformance(aiChatbotSqlite, gaps);
engineConformance(aiChatbotPostgres, gaps);
