export const SERVICE_ADDED = '新增服务成功';
export const SERVICE_ADD_FAILED = '新增服务失败';
export const SERVICE_PUBLISHED = '服务上架成功!';
export const SERVICE_UNPUBLISHED = '服务下架成功!';
export const SERVICE_NOT_FOUND = '服务不存在';
