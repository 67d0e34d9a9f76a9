import { chromium, type Browser, type LaunchOptions, type Page } from "playwright-core";

export interface ChromiumOptions {
  /**
   * A fake camera and microphone (Chromium's test pattern and beep) and media that plays without
   * a click, for pages that call getUserMedia and play remote tracks.
   */
  fakeMedia?: boolean;
  /**
   * With `fakeMedia`: whether the camera and microphone permission prompt is answered "Allow"
   * (the default). `false` leaves it unanswered, so getUserMedia is refused, as when a person
   * clicks "Block".
   */
  allowDevices?: boolean;
  /**
   * With `fakeMedia`: how many fake cameras Chromium lists (fake_device_0, fake_device_1, …; one
   * unless said), for switching cameras mid-call. Chromium always lists three fake microphones and
   * three fake speakers.
   */
  cameras?: number;
  /**
   * With `fakeMedia`: a WAV file the fake microphone plays (looped) instead of its beep, for speech a
   * test knows (`--use-file-for-fake-audio-capture`; one file per browser process).
   */
  fakeAudioFile?: string;
}

/** Launch options of Debian's Chromium (never a downloaded browser), headless, without background noise. */
function launchOptions(options: ChromiumOptions): LaunchOptions {
  const media = options.fakeMedia
    ? [
        options.cameras ? `--use-fake-device-for-media-stream=device-count=${options.cameras}` : "--use-fake-device-for-media-stream",
        ...(options.allowDevices === false ? [] : ["--use-fake-ui-for-media-stream"]),
        ...(options.fakeAudioFile ? [`--use-file-for-fake-audio-capture=${options.fakeAudioFile}`] : []),
        "--autoplay-policy=no-user-gesture-required",
      ]
    : [];
  return {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      // Containers and CI runners have no user namespaces for the sandbox, nor a GPU.
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...media,
    ],
  };
}

/** The one way tests start a browser: headless Debian Chromium driven by playwright-core. */
export function launchChromium(options: ChromiumOptions = {}): Promise<Browser> {
  return chromium.launch(launchOptions(options));
}

/** The same browser as a separate process the test can kill without a goodbye (SIGKILL). */
export async function launchKillableChromium(options: ChromiumOptions = {}): Promise<{ browser: Browser; kill: () => void }> {
  const server = await chromium.launchServer(launchOptions(options));
  const browser = await chromium.connect(server.wsEndpoint());
  return { browser, kill: () => void server.process().kill("SIGKILL") };
}

/**
 * Collects into `problems` what a page must never do: a script error, or a Content Security Policy
 * violation (Chromium reports those on the console as "Refused to ..."). A test expects the list
 * empty after what it drove.
 */
export function collectPageProblems(page: Page, problems: string[]): void {
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/.test(message.text())) problems.push(message.text());
  });
}
