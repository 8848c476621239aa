/**
 * The side panel tabs' icons: 16×16 outline paths (stroked in the text colour), by tab id. A tab
 * without one shows the first letter of its name instead.
 */
export const SIDE_TAB_ICONS: Readonly<Record<string, string>> = {
  // A speech bubble.
  annotations: 'M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z',
  // A drop.
  spills: 'M8 2.5c2.2 3 4 5.2 4 7.2a4 4 0 0 1-8 0c0-2 1.8-4.2 4-7.2z',
  // A record button.
  capture: 'M8 2.5a5.5 5.5 0 1 1 0 11a5.5 5.5 0 1 1 0-11zM8 6a2 2 0 1 1 0 4a2 2 0 1 1 0-4z',
  // A target.
  drill: 'M8 2a6 6 0 1 1 0 12a6 6 0 1 1 0-12zM8 5a3 3 0 1 1 0 6a3 3 0 1 1 0-6zM8 7.5v1',
  // Two people.
  class: 'M6 3.5a2 2 0 1 1 0 4a2 2 0 1 1 0-4zM2.5 12.5c0-2 1.6-3.5 3.5-3.5s3.5 1.5 3.5 3.5zM11 4.5a1.6 1.6 0 1 1 0 3.2M11.5 9c1.3.3 2 1.6 2 3.5h-2',
  // A flask.
  lab: 'M6.5 2.5h3M7 2.5v4l-3.5 6a1 1 0 0 0 .9 1.5h7.2a1 1 0 0 0 .9-1.5l-3.5-6v-4M5 10h6',
};
