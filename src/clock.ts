// How far apart two clocks that stamp the same records may be: the nodes of a
// cluster each stamp with their own (docs/cluster.md asks for NTP). A stamp
// further ahead of this clock than that was made while a clock ran ahead,
// and is read as such (console sessions, due times).
export const CLOCK_SKEW_MS = 5 * 60_000;
