# The console's container, made from exactly the folder `npm run package` writes (docs/deployment.md):
#   BREAKWATER_BASE_PATH=/ops/breakwater npm run package && docker build -t breakwater .
# No test builds or runs this image (the test machines have no container engine); e2e/deployment.spec.ts
# runs that same folder with plain `node server.js` behind nginx.
FROM node:24-bookworm-slim
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0
WORKDIR /app
# Owned by root and not writable by the user it runs as: a read-only root file system changes nothing.
COPY --chown=root:root out/breakwater/ ./
USER node
EXPOSE 3000
# /api/healthz under the base path the artifact was built with.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const b=require('./breakwater-package.json').basePath;fetch('http://127.0.0.1:'+process.env.PORT+b+'/api/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "server.js"]
