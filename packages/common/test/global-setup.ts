export { setupTestServers as default } from '../src/testing/index.js';
