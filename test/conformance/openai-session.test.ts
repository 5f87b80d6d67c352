import { engineConformance } from "./suite.js";
import { openaiSession } from "./layouts.js";

engineConformance(openaiSession);
