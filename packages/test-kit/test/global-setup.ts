import { setupTestServers } from '../src/index.js';

export default setupTestServers;
