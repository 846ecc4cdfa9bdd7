/**
 * The query of the address this page was loaded with. Sign-in runs without a router (see
 * page.tsx), and every way off it is a full page load, so its address never changes under it:
 * reading `window.location` once, when the screen opens, is all it needs.
 */
export function pageQuery(): URLSearchParams {
  return new URLSearchParams(window.location.search);
}
