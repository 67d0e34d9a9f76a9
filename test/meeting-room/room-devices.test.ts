import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { collectPageProblems, launchChromium } from "../support/chromium.ts";
import { holdStill } from "../support/hold-still.ts";
import { inboundMedia, joinMeeting, remoteTiles } from "../support/meeting-room-browser.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

/**
 * In the call: the settings dialog switching camera and microphone (the other person keeps
 * receiving, now from the new device), the mute state kept across a switch, the choice remembered
 * on this browser; and the keyboard shortcuts with their help dialog. Real Chromium with three fake
 * cameras, three fake microphones and speakers, against a stack with its own LiveKit server.
 */

let tenant: Tenant;
let browser: Browser;
const fixture = useStack({ media: true });
beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
  // Three fake cameras: Chromium's fake_device_1 delivers Y16 (depth) frames, which a video element
  // shows but WebRTC cannot send; fake_device_2 delivers MJPEG, as most webcams do.
  browser = await launchChromium({ fakeMedia: true, cameras: 3 });
});
afterAll(async () => browser?.close());

const SHOTS = process.env.MEETING_ROOM_SHOTS_DIR ?? "/tmp/room-shots";
/** Screenshots at desktop and phone size, to look at after a change (not compared by pixel). */
async function shootAtBothSizes(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  for (const [size, viewport] of [
    ["desktop", { width: 1280, height: 800 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: `${SHOTS}/${name}-${size}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function createMeeting(title: string): Promise<string> {
  const response = await callApi(apiBase(fixture.stack), "POST", "/meeting", { key: tenant.apiKey, body: { title } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

/** What the page sends: its outgoing camera or microphone track as the peer connection has it. */
async function sentTrack(page: Page, kind: "video" | "audio"): Promise<{ id: string; deviceId: string; live: boolean } | undefined> {
  return page.evaluate((kind) => {
    const connections = (window as unknown as { __peerConnections: RTCPeerConnection[] }).__peerConnections;
    for (const connection of connections) {
      if (connection.connectionState === "closed") continue;
      for (const sender of connection.getSenders()) {
        const track = sender.track;
        if (track?.kind === kind) return { id: track.id, deviceId: track.getSettings().deviceId ?? "", live: track.readyState === "live" };
      }
    }
    return undefined;
  }, kind);
}

const totalFrames = async (page: Page) => (await inboundMedia(page)).videoFramesByTrack.reduce((sum, frames) => sum + frames, 0);
const control = (page: Page, name: string) => page.getByRole("group", { name: "Meeting controls" }).getByRole("button", { name, exact: true });
const settingsDialog = (page: Page) => page.getByRole("dialog", { name: "Settings" });

async function openSettings(page: Page) {
  await control(page, "Settings").click();
  await settingsDialog(page).waitFor();
}

async function closeDialog(page: Page, name: string) {
  await page.getByRole("dialog", { name }).getByRole("button", { name: "Close" }).click();
  await page.getByRole("dialog", { name }).waitFor({ state: "hidden" });
}

/** The option of `select` that is not the selected one (the other fake camera, another fake microphone). */
async function anotherOption(page: Page, label: string): Promise<{ value: string; text: string }> {
  return settingsDialog(page)
    .getByLabel(label, { exact: true })
    .evaluate((select: HTMLSelectElement) => {
      const option = Array.from(select.options).find(
        (candidate) => !candidate.selected && candidate.value !== "default" && candidate.value !== "communications",
      )!;
      return { value: option.value, text: option.text };
    });
}

describe("devices in the call", () => {
  it("switches camera and microphone mid-call: the other person receives the new track; a muted microphone or a camera that is off stays so; the choice is remembered after a reload", async () => {
    const url = await createMeeting("Switching devices");
    const ada = await joinMeeting(browser, url, "Ada");
    const problems: string[] = [];
    collectPageProblems(ada, problems);
    const grace = await joinMeeting(browser, url, "Grace");
    await expect.poll(() => totalFrames(grace), { timeout: 20_000 }).toBeGreaterThan(10);
    await expect.poll(async () => (await sentTrack(ada, "video"))?.live, { timeout: 15_000 }).toBe(true);
    const firstCamera = (await sentTrack(ada, "video"))!;

    // The dialog: reachable from the control bar, the focus on its first field, camera listed twice.
    await openSettings(ada);
    const cameraSelect = settingsDialog(ada).getByLabel("Camera", { exact: true });
    expect(await cameraSelect.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await cameraSelect.locator("option").allTextContents()).toEqual(["fake_device_0", "fake_device_1", "fake_device_2"]);
    expect(await cameraSelect.inputValue()).toBe(firstCamera.deviceId);
    expect(await settingsDialog(ada).getByLabel("Microphone", { exact: true }).locator("option").count()).toBe(3);
    expect(await settingsDialog(ada).getByLabel("Speaker", { exact: true }).locator("option").count()).toBe(3);
    await shootAtBothSizes(ada, "room-settings");

    // Camera: a new capture track from the other device goes out, and Grace keeps decoding frames.
    const otherCamera = { value: await cameraSelect.locator("option", { hasText: "fake_device_2" }).getAttribute("value") };
    await cameraSelect.selectOption({ label: "fake_device_2" });
    await expect.poll(async () => (await sentTrack(ada, "video"))?.deviceId, { timeout: 15_000 }).toBe(otherCamera.value);
    const secondCamera = (await sentTrack(ada, "video"))!;
    expect(secondCamera.id).not.toBe(firstCamera.id);
    expect(secondCamera.live).toBe(true);
    const framesAtSwitch = await totalFrames(grace);
    await expect.poll(() => totalFrames(grace), { timeout: 15_000 }).toBeGreaterThan(framesAtSwitch + 30);
    await expect.poll(() => ada.locator("[aria-live=polite]").textContent()).toContain("Camera: fake_device_2");

    // Microphone, muted: the switch keeps it muted (Grace sees it so); unmuting sends the new device.
    await closeDialog(ada, "Settings");
    expect(await control(ada, "Settings").evaluate((element) => element === document.activeElement)).toBe(true);
    await control(ada, "Microphone").click();
    await expect.poll(() => control(ada, "Microphone").getAttribute("aria-pressed")).toBe("false");
    await expect.poll(() => remoteTiles(grace).getAttribute("data-muted")).toBe("true");
    const firstMicrophone = (await sentTrack(ada, "audio"))!;
    await openSettings(ada);
    const otherMicrophone = await anotherOption(ada, "Microphone");
    await settingsDialog(ada).getByLabel("Microphone", { exact: true }).selectOption(otherMicrophone.value);
    await expect.poll(() => ada.locator("[aria-live=polite]").textContent()).toContain(`Microphone: ${otherMicrophone.text}`);
    await closeDialog(ada, "Settings");
    expect(await control(ada, "Microphone").getAttribute("aria-pressed")).toBe("false");
    expect(await remoteTiles(grace).getAttribute("data-muted")).toBe("true");
    await control(ada, "Microphone").click();
    await expect.poll(async () => (await sentTrack(ada, "audio"))?.deviceId, { timeout: 15_000 }).toBe(otherMicrophone.value);
    expect((await sentTrack(ada, "audio"))!.id).not.toBe(firstMicrophone.id);
    await expect.poll(() => remoteTiles(grace).getAttribute("data-muted")).not.toBe("true");
    const packetsAtUnmute = (await inboundMedia(grace)).audioPackets;
    await expect.poll(async () => (await inboundMedia(grace)).audioPackets, { timeout: 15_000 }).toBeGreaterThan(packetsAtUnmute + 20);

    // Camera off, then switched back to the first: it stays off.
    await control(ada, "Camera").click();
    await expect.poll(() => control(ada, "Camera").getAttribute("aria-pressed")).toBe("false");
    await openSettings(ada);
    await cameraSelect.selectOption(firstCamera.deviceId);
    await expect.poll(() => ada.locator("[aria-live=polite]").textContent()).toContain("Camera: fake_device_0");
    await closeDialog(ada, "Settings");
    expect(await control(ada, "Camera").getAttribute("aria-pressed")).toBe("false");
    await expect.poll(() => remoteTiles(grace).getAttribute("data-camera")).toBe("off");

    // The next meeting on this browser: the pre-join previews the remembered camera, and the room uses it and the microphone.
    await ada.reload();
    await ada.getByRole("heading", { level: 2, name: "Ready to join?" }).waitFor();
    await expect
      .poll(() =>
        ada
          .locator(".preview-video")
          .evaluate((video: HTMLVideoElement) => (video.srcObject as MediaStream | null)?.getVideoTracks()[0]?.getSettings().deviceId),
      )
      .toBe(firstCamera.deviceId);
    await expect.poll(() => ada.locator("#microphone-select").inputValue()).toBe(otherMicrophone.value);
    await ada.getByLabel("Your name").fill("Ada");
    await ada.getByRole("button", { name: /^Join/ }).click();
    await expect.poll(async () => (await sentTrack(ada, "audio"))?.deviceId, { timeout: 20_000 }).toBe(otherMicrophone.value);
    expect((await sentTrack(ada, "video"))?.deviceId).toBe(firstCamera.deviceId);
    await openSettings(ada);
    expect(await settingsDialog(ada).getByLabel("Microphone", { exact: true }).inputValue()).toBe(otherMicrophone.value);
    expect(problems).toEqual([]);
    await ada.close();
    await grace.close();
  });

  it("the lists follow a camera plugged in and out while the dialog is open", async () => {
    const url = await createMeeting("Plugging");
    const page = await joinMeeting(browser, url, "Ada");
    // Chromium's fake devices cannot be plugged in or out, so this stands at the browser's edge:
    // enumerateDevices leaves out the "unplugged" camera, and plugging fires the browser's
    // devicechange event, as a real USB camera does.
    await page.evaluate(() => {
      const unplugged = new Set(["fake_device_2"]);
      const enumerate = navigator.mediaDevices.enumerateDevices.bind(navigator.mediaDevices);
      navigator.mediaDevices.enumerateDevices = async () => (await enumerate()).filter((device) => !unplugged.has(device.label));
      (window as unknown as { plug: (inOut: boolean) => void }).plug = (inOut) => {
        if (inOut) unplugged.clear();
        else unplugged.add("fake_device_1");
        navigator.mediaDevices.dispatchEvent(new Event("devicechange"));
      };
    });
    await openSettings(page);
    const cameras = settingsDialog(page).getByLabel("Camera", { exact: true }).locator("option");
    expect(await cameras.allTextContents()).toEqual(["fake_device_0", "fake_device_1"]);
    await page.evaluate(() => (window as unknown as { plug: (inOut: boolean) => void }).plug(true));
    await expect.poll(() => cameras.allTextContents()).toEqual(["fake_device_0", "fake_device_1", "fake_device_2"]);
    await page.evaluate(() => (window as unknown as { plug: (inOut: boolean) => void }).plug(false));
    await expect.poll(() => cameras.allTextContents()).toEqual(["fake_device_0", "fake_device_2"]);
    await page.close();
  });

  it("the speaker choice plays the others through the chosen output and is remembered", async () => {
    const url = await createMeeting("Speaker");
    const ada = await joinMeeting(browser, url, "Ada");
    const grace = await joinMeeting(browser, url, "Grace");
    await ada.locator(".audio-sink audio").first().waitFor({ state: "attached", timeout: 20_000 });
    /** The output device the page's remote audio plays through. */
    const sinkOf = (page: typeof ada) =>
      page
        .locator(".audio-sink audio")
        .first()
        .evaluate((audio: HTMLAudioElement) => audio.sinkId);
    await openSettings(ada);
    const speaker = await anotherOption(ada, "Speaker");
    await settingsDialog(ada).getByLabel("Speaker", { exact: true }).selectOption(speaker.value);
    await expect.poll(() => sinkOf(ada)).toBe(speaker.value);
    await ada.reload();
    await ada.getByLabel("Your name").fill("Ada");
    await ada.getByRole("button", { name: /^Join/ }).click();
    await ada.locator(".audio-sink audio").first().waitFor({ state: "attached", timeout: 20_000 });
    await expect.poll(() => sinkOf(ada)).toBe(speaker.value);
    await ada.close();
    await grace.close();
  });
});

describe("keyboard shortcuts", () => {
  it("Ctrl+D and Ctrl+E toggle microphone and camera; nothing fires while typing in the chat; ? and the Shortcuts button open the help; Alt+Q asks before leaving", async () => {
    const url = await createMeeting("Keyboard");
    const page = await joinMeeting(browser, url, "Kim");
    const problems: string[] = [];
    collectPageProblems(page, problems);
    const microphone = control(page, "Microphone");
    const camera = control(page, "Camera");
    await expect.poll(() => microphone.getAttribute("aria-pressed"), { timeout: 15_000 }).toBe("true");
    await expect.poll(() => camera.getAttribute("aria-pressed"), { timeout: 15_000 }).toBe("true");

    await page.keyboard.press("Control+d");
    await expect.poll(() => microphone.getAttribute("aria-pressed")).toBe("false");
    await page.keyboard.press("Control+d");
    await expect.poll(() => microphone.getAttribute("aria-pressed")).toBe("true");
    await page.keyboard.press("Control+e");
    await expect.poll(() => camera.getAttribute("aria-pressed")).toBe("false");
    await page.keyboard.press("Control+e");
    await expect.poll(() => camera.getAttribute("aria-pressed")).toBe("true");

    // Typing in the chat: the keys are the text's, no shortcut acts.
    const chat = page.getByLabel("Message", { exact: true });
    await chat.click();
    await page.keyboard.press("Control+d");
    await page.keyboard.press("Control+e");
    await page.keyboard.press("Alt+q");
    await page.keyboard.type("why? ok");
    await holdStill(1_000, "a shortcut acting on keys typed in the chat would show within a second");
    expect(await chat.inputValue()).toBe("why? ok");
    expect(await microphone.getAttribute("aria-pressed")).toBe("true");
    expect(await camera.getAttribute("aria-pressed")).toBe("true");
    expect(await page.getByRole("dialog").count()).toBe(0);

    // ? opens the help: a labelled modal dialog with the focus inside; Escape closes it.
    await chat.blur();
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await help.waitFor();
    expect(await help.evaluate((element) => element.contains(document.activeElement))).toBe(true);
    expect(await help.locator(".shortcut").allInnerTexts()).toEqual([
      expect.stringMatching(/Ctrl\s*\+\s*D\s+Turn the microphone on or off/),
      expect.stringMatching(/Ctrl\s*\+\s*E\s+Turn the camera on or off/),
      expect.stringMatching(/Alt\s*\+\s*Y\s+Raise or lower your hand/),
      expect.stringMatching(/Alt\s*\+\s*Q\s+Leave the meeting \(asks first\)/),
      expect.stringMatching(/\?\s+Show these shortcuts/),
    ]);
    // While it is open the shortcuts rest: the keys belong to the dialog.
    await page.keyboard.press("Control+d");
    expect(await microphone.getAttribute("aria-pressed")).toBe("true");
    await shootAtBothSizes(page, "room-shortcuts");
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "hidden" });

    // The visible control opens it too, and the focus goes back to it on Close.
    const button = page.getByRole("button", { name: "Shortcuts" });
    expect(await button.getAttribute("aria-haspopup")).toBe("dialog");
    await button.click();
    await help.waitFor();
    await closeDialog(page, "Keyboard shortcuts");
    expect(await button.evaluate((element) => element === document.activeElement)).toBe(true);

    // Alt+Q asks; Cancel stays in the meeting, Leave leaves.
    await page.keyboard.press("Alt+q");
    const confirm = page.getByRole("dialog", { name: "Leave the meeting?" });
    await confirm.waitFor();
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "hidden" });
    expect(await page.getByRole("group", { name: "Meeting controls" }).count()).toBe(1);
    await page.keyboard.press("Alt+q");
    await confirm.getByRole("button", { name: "Leave" }).click();
    await page.getByRole("heading", { level: 2, name: "You left the meeting" }).waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });
});
