// Imported first: zod (inside Scalar) probes `new Function("")` to decide whether to compile its
// parsers, and the page's CSP (no 'unsafe-eval') reports that probe as a violation. jitless makes
// zod skip the probe and interpret schemas, which is all this page needs.
import { config } from "zod";

config({ jitless: true });
