import { nodeDriver } from "./drivers/node.ts";
import { conformance } from "./suite.ts";

conformance(nodeDriver);
