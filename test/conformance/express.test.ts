import { expressDriver } from "./drivers/express.ts";
import { conformance } from "./suite.ts";

// Latest (express 5) and lowest supported (express4 = express@4.21.0).
conformance(expressDriver("express"));
conformance(expressDriver("express4"));
