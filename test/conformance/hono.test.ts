import { honoDriver } from "./drivers/hono.ts";
import { conformance } from "./suite.ts";

conformance(honoDriver);
