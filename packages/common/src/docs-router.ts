import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { Router } from 'express';
import type { OpenApiDocument } from './openapi.js';

const swaggerUiDir = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

function docsPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>`;
}

/** GET /openapi.json and an interactive reference (Swagger UI) at GET /docs. */
export function docsRouter(document: OpenApiDocument): Router {
  const router = Router();
  const title = String((document.info as { title?: unknown } | undefined)?.title ?? 'API');
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.type('html').send(docsPage(title));
  });
  router.get('/docs/init.js', (_req, res) => {
    res
      .type('application/javascript')
      .send("SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui' });\n");
  });
  router.use('/docs', express.static(swaggerUiDir, { index: false }));
  return router;
}
