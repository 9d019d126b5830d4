import { fetchDriver } from "./drivers/fetch.ts";
import { conformance } from "./suite.ts";

conformance(fetchDriver);
