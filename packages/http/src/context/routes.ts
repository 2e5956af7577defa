import { addRoute } from './add.ts';
import { deleteRoute } from './delete.ts';
import { searchRoute } from './search.ts';
import { viewDocsRoute, viewRoute } from './view.ts';

export { addRoute, deleteRoute, searchRoute, viewDocsRoute, viewRoute };

/** Every context route, for the document of a runtime that does not serve them (the AWS docs function). */
export const contextRoutes = [addRoute, searchRoute, deleteRoute, viewRoute, viewDocsRoute];
