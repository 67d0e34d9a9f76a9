// Icon path data (24×24). Call-end is Material Symbols' (Apache-2.0); the others are drawn here.
export const icons = {
  microphone: ["M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3Z", "M17 11a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.92V21h2v-3.08A7 7 0 0 0 19 11h-2Z"],
  camera: ["M4 6h11a2 2 0 0 1 2 2v1.5l4-3v11l-4-3V16a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2Z"],
  screen: [
    "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2h-6v2h3v2H7v-2h3v-2H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2Zm0 2v10h16V6H4Z",
    "M12 7.5l3.5 3.5H13v3h-2v-3H8.5L12 7.5Z",
  ],
  leave: [
    "M12 9c-1.6 0-3.15.25-4.6.72v3.1c0 .39-.23.74-.56.9-.98.49-1.87 1.12-2.66 1.85-.18.18-.43.28-.7.28-.28 0-.53-.11-.71-.29L.29 13.08a.96.96 0 0 1 0-1.36C3.34 8.78 7.46 7 12 7s8.66 1.78 11.71 4.72c.18.18.29.43.29.71 0 .28-.11.53-.29.71l-2.48 2.48c-.18.18-.43.29-.71.29-.27 0-.52-.11-.7-.28a11.27 11.27 0 0 0-2.67-1.85 1 1 0 0 1-.56-.9v-3.1C15.15 9.25 13.6 9 12 9Z",
  ],
  /** A person and a minus: a host removing someone. */
  removePerson: ["M9 4a4 4 0 1 1 0 8 4 4 0 0 1 0-8Z", "M1 20c0-3.3 3.6-6 8-6s8 2.7 8 6v1H1v-1Z", "M16 10h7v2h-7v-2Z"],
  /** Material Icons' settings gear (Apache-2.0). */
  settings: [
    "M19.14 12.94c.04-.3.06-.61.06-.94 0-.32-.02-.64-.07-.94l2.03-1.58a.49.49 0 0 0 .12-.61l-1.92-3.32a.49.49 0 0 0-.59-.22l-2.39.96c-.5-.38-1.03-.7-1.62-.94l-.36-2.54a.48.48 0 0 0-.48-.41h-3.84c-.24 0-.43.17-.47.41l-.36 2.54c-.59.24-1.13.57-1.62.94l-2.39-.96a.48.48 0 0 0-.59.22L2.74 8.87c-.12.21-.08.47.12.61l2.03 1.58c-.05.3-.09.63-.09.94s.02.64.07.94l-2.03 1.58a.49.49 0 0 0-.12.61l1.92 3.32c.12.22.37.29.59.22l2.39-.96c.5.38 1.03.7 1.62.94l.36 2.54c.05.24.24.41.48.41h3.84c.24 0 .44-.17.47-.41l.36-2.54c.59-.24 1.13-.56 1.62-.94l2.39.96c.22.08.47 0 .59-.22l1.92-3.32c.12-.22.07-.47-.12-.61l-2.01-1.58ZM12 15.6A3.6 3.6 0 1 1 12 8.4a3.6 3.6 0 0 1 0 7.2Z",
  ],
  /** A keyboard: the keyboard-shortcuts help. */
  keyboard: [
    "M3 5h18a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H3a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2Zm0 2v10h18V7H3Zm2 2h2v2H5V9Zm4 0h2v2H9V9Zm4 0h2v2h-2V9Zm4 0h2v2h-2V9ZM7 13h10v2H7v-2Z",
  ],
  /** Material Icons' pan_tool (Apache-2.0): a raised hand. */
  hand: [
    "M23 5.5V20c0 2.2-1.8 4-4 4h-7.3c-1.08 0-2.1-.43-2.85-1.19L1 14.83s1.26-1.23 1.3-1.25c.22-.19.49-.29.79-.29.22 0 .42.06.6.16.04.01 4.31 2.46 4.31 2.46V4c0-.83.67-1.5 1.5-1.5S11 3.17 11 4v7h1V1.5c0-.83.67-1.5 1.5-1.5S15 .67 15 1.5V11h1V2.5c0-.83.67-1.5 1.5-1.5s1.5.67 1.5 1.5V11h1V5.5c0-.83.67-1.5 1.5-1.5s1.5.67 1.5 1.5Z",
  ],
  /** A smiling face: the reactions picker. */
  react: [
    "M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20Zm0 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16Zm-3.5 4a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3Zm7 0a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3ZM7 13.5h10a5 5 0 0 1-10 0Z",
  ],
  /** Three bars of rising height: connection quality (each bar a path, so the style sheet can dim them). */
  signal: ["M3 16h4v5H3v-5Z", "M10 10h4v11h-4V10Z", "M17 4h4v17h-4V4Z"],
  /** A large tile beside a column of small ones: the speaker view. */
  speaker: ["M2 4h14v16H2V4Zm16 0h4v4h-4V4Zm0 6h4v4h-4v-4Zm0 6h4v4h-4v-4Z"],
  /** Four tiles: the grid view. */
  grid: ["M3 3h8v8H3V3Zm10 0h8v8h-8V3ZM3 13h8v8H3v-8Zm10 0h8v8h-8v-8Z"],
  /** Three dots: more actions. */
  more: ["M5 10a2 2 0 1 1 0 4 2 2 0 0 1 0-4Zm7 0a2 2 0 1 1 0 4 2 2 0 0 1 0-4Zm7 0a2 2 0 1 1 0 4 2 2 0 0 1 0-4Z"],
  /** Drawn over microphone or camera when it is off. */
  slash: ["M3.3 2 22 20.7 20.7 22 2 3.3 3.3 2Z"],
  warning: ["M12 2 1 21h22L12 2Zm1 15h-2v2h2v-2Zm0-7h-2v5h2v-5Z"],
} as const satisfies Record<string, readonly string[]>;

export const iconPaths = (name: keyof typeof icons, off = false): string[] => [...icons[name], ...(off ? icons.slash : [])];
