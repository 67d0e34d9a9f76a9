import type { Logger } from "@svc/platform";
import type { Config } from "../config.ts";

/** Says loudly at start which secrets are development values or missing (STYLE.md, habit 10). */
export function warnAboutDevelopmentDefaults(config: Config, logger: Logger): void {
  if (config.livekit.isDevelopmentDefault) {
    logger.warn(
      "LIVEKIT_API_KEY/LIVEKIT_API_SECRET are unset: using the PUBLIC development pair that `npm start` gives its media server. " +
        "Anyone can mint room tokens with it; never use it outside development.",
    );
  }
  if (config.recording.linkSecretIsDevelopmentDefault) {
    logger.warn(
      "RECORDING_LINK_SECRET is unset: recording download links are signed with a PUBLIC development value. " +
        "Anyone could forge a link to any recording; never use it outside development.",
    );
  }
  if (config.recording.linkSecret === undefined) {
    logger.warn("RECORDING_LINK_SECRET is unset: recordings can be made, but no download link is issued until it is set.");
  }
}
