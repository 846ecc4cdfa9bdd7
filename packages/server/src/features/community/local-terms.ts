import type { FastifyInstance } from 'fastify';
import { LOCAL_COMMUNITY_TERMS_PATH } from '../../config.js';

/**
 * The local environment's stand-in for the community terms page (decision 0021), so that
 * `/discourse-terms` can load its frame on a fresh machine with no forum running. Static text
 * only; a deployment frames the forum's own page (COMMUNITY_TERMS_URL, else the forum's /tos).
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Foyer Community terms and conditions</title>
</head>
<body>
<main>
<h1>Foyer Community terms and conditions</h1>
<p>This is the local stand-in for the community forum's terms page. A deployment shows the forum's own terms here.</p>
<h2>Be kind</h2>
<p>Treat other members with respect. Personal attacks, harassment and hate speech are removed.</p>
<h2>Share what you may share</h2>
<p>Post only what you have the right to post, and never another person's private information.</p>
<h2>Moderation</h2>
<p>Moderators may edit or remove posts and suspend accounts that break these terms.</p>
</main>
</body>
</html>
`;

/**
 * The one page Foyer lets another of its pages frame: same origin only (the global policy says
 * `frame-ancestors 'none'` and `X-Frame-Options: DENY` for everything else), and no script,
 * style or form of its own.
 */
export function registerLocalTermsPage(app: FastifyInstance): void {
  app.get(LOCAL_COMMUNITY_TERMS_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'")
      .header('x-frame-options', 'SAMEORIGIN')
      .header('cache-control', 'public, max-age=3600')
      .send(PAGE),
  );
}
