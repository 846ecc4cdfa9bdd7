/** Spec §1: the five environments, and the kinds of surrounding service each one maps to a URL. */
export const ENVIRONMENTS = ['dev', 'staging', 'prod', 'local', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const SERVER_KINDS = [
  'app',
  'appServer',
  'rest',
  'realtime',
  'auth',
  'publicDirectory',
  'localisation',
  'task',
  'shortLink',
  'publicApi',
  'marketing',
  'growthProxy',
  'embed',
  'community',
] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

export type ServerUrls = Partial<Record<ServerKind, string>>;

/** Spec §8: the exact log line when an environment has no address for a kind. */
export function serverUrlNotFoundMessage(kind: ServerKind): string {
  return `Server URL of type ${kind} not found`;
}

/**
 * Looks up a kind's address, logging the spec's line when it is missing (spec §8), so a
 * misconfigured environment shows up in the logs instead of failing silently.
 */
export function serverUrl(urls: ServerUrls, kind: ServerKind, log: (message: string) => void = console.warn): string | undefined {
  const url = urls[kind];
  if (url === undefined) log(serverUrlNotFoundMessage(kind));
  return url;
}
