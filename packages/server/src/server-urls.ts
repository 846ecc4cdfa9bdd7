import type { Environment, ServerUrls } from '@foyer/contract';

/**
 * Local and test addresses of every server kind. This service is the auth service, serves the
 * app and the localisation files, so those three are PUBLIC_URL; the rest are placeholders on
 * localhost ports, so links render and the redirect allow-list knows them:
 *
 * | kind            | local address           | why this port                    |
 * |-----------------|-------------------------|----------------------------------|
 * | app             | PUBLIC_URL (8080)       | this service serves the web app  |
 * | auth            | PUBLIC_URL (8080)       | this service                     |
 * | localisation    | PUBLIC_URL (8080)       | this service serves /static/lang |
 * | marketing       | http://localhost:3000   | usual static-site dev port       |
 * | publicDirectory | http://localhost:3001   | next to the marketing site       |
 * | shortLink       | http://localhost:3002   | next to the marketing site       |
 * | community       | http://localhost:4200   | Discourse's development port     |
 * | appServer       | http://localhost:8081   | API-side services from 8081 up   |
 * | rest            | http://localhost:8082   |                                  |
 * | realtime        | ws://localhost:8083     | a socket service                 |
 * | task            | http://localhost:8084   |                                  |
 * | publicApi       | http://localhost:8085   |                                  |
 * | embed           | http://localhost:8086   |                                  |
 * | growthProxy     | http://localhost:8087   |                                  |
 */
export function localServerUrls(publicUrl: string): ServerUrls {
  return {
    app: publicUrl,
    auth: publicUrl,
    localisation: publicUrl,
    marketing: 'http://localhost:3000',
    publicDirectory: 'http://localhost:3001',
    shortLink: 'http://localhost:3002',
    community: 'http://localhost:4200',
    appServer: 'http://localhost:8081',
    rest: 'http://localhost:8082',
    realtime: 'ws://localhost:8083',
    task: 'http://localhost:8084',
    publicApi: 'http://localhost:8085',
    embed: 'http://localhost:8086',
    growthProxy: 'http://localhost:8087',
  };
}

const PRODUCT_DOMAIN = 'foyer.app';

/**
 * Deployed addresses on the product domain: prod `https://<kind>.foyer.app`, staging and dev
 * `https://<kind>.<env>.foyer.app`; the marketing site is the bare domain. The auth and
 * localisation kinds are this service, so they follow PUBLIC_URL. Dev has no forum and no growth
 * proxy: asking for them logs the spec's "Server URL of type … not found" line (spec §8).
 */
export function deployedServerUrls(env: Environment, publicUrl: string): ServerUrls {
  const domain = env === 'prod' ? PRODUCT_DOMAIN : `${env}.${PRODUCT_DOMAIN}`;
  const urls: ServerUrls = {
    app: `https://app.${domain}`,
    auth: publicUrl,
    localisation: publicUrl,
    marketing: `https://${domain}`,
    publicDirectory: `https://directory.${domain}`,
    shortLink: `https://go.${domain}`,
    community: `https://community.${domain}`,
    appServer: `https://server.${domain}`,
    rest: `https://api.${domain}`,
    realtime: `wss://realtime.${domain}`,
    task: `https://tasks.${domain}`,
    publicApi: `https://public-api.${domain}`,
    embed: `https://embed.${domain}`,
    growthProxy: `https://growth.${domain}`,
  };
  if (env === 'dev') {
    delete urls.community;
    delete urls.growthProxy;
  }
  return urls;
}
