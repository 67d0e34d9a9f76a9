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
  /** Drawn over microphone or camera when it is off. */
  slash: ["M3.3 2 22 20.7 20.7 22 2 3.3 3.3 2Z"],
  warning: ["M12 2 1 21h22L12 2Zm1 15h-2v2h2v-2Zm0-7h-2v5h2v-5Z"],
} as const satisfies Record<string, readonly string[]>;

export const iconPaths = (name: keyof typeof icons, off = false): string[] => [...icons[name], ...(off ? icons.slash : [])];
