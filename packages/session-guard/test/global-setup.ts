import { setupTestServers } from '@svc/test-kit';

export default setupTestServers;
