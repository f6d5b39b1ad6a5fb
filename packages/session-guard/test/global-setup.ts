export { setupTestServers as default } from '@svc/common/testing';
