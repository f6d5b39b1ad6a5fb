import type { Router } from 'express';
import { endpointRouter } from '../http/endpoints.js';
import { dataEnvelope, errorEnvelope, msgEnvelope } from '../http/failure.js';
import { serviceHandlers } from './service.handlers.js';
import type { ServiceRepository } from './service.repository.js';

export function serviceRoutes(services: ServiceRepository): Router {
  const handle = serviceHandlers(services);
  return endpointRouter([
    {
      method: 'get',
      path: '/api/service/list',
      failure: errorEnvelope('获取失败'),
      handler: handle.list,
    },
    {
      method: 'post',
      path: '/api/service/add',
      failure: dataEnvelope('新增服务失败'),
      handler: handle.add,
    },
    {
      method: 'put',
      path: '/api/service/publish/:id',
      failure: msgEnvelope('服务不存在'),
      handler: handle.publish,
    },
    {
      method: 'put',
      path: '/api/service/unpublish/:id',
      failure: msgEnvelope('服务不存在'),
      handler: handle.unpublish,
    },
  ]);
}
