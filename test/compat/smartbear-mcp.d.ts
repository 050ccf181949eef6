// The parts of @smartbear/mcp 0.41.0 (plain JavaScript, no types) the compatibility test drives:
// the generated Bugsnag client the MCP server configures, and the MCP server's tools.
declare module '@smartbear/mcp/dist/bugsnag/client.js' {
  interface ApiResponse<T> {
    status: number
    body: T
    nextUrl?: string | null
    totalCount?: number | null
  }
  type Filters = Record<string, Array<{ type: string; value: string | number }>>
  type Json = Record<string, unknown>
  export class BugsnagClient {
    configure(server: unknown, config: { auth_token: string; endpoint?: string; project_api_key?: string }): Promise<void>
    getProjects(): Promise<Json[]>
    getProjectEventFields(project: Json): Promise<Json[]>
    errorsApi: {
      listProjectErrors(projectId: string, base: null, sort?: string, direction?: string, perPage?: number, filters?: Filters): Promise<ApiResponse<Json[]>>
      viewErrorOnProject(projectId: string, errorId: string): Promise<ApiResponse<Json>>
      listErrorEvents(projectId: string, errorId: string, base: undefined, sort: string, direction?: string, perPage?: number, filters?: Filters, nextUrl?: string): Promise<ApiResponse<Json[]>>
      listEventsOnProject(projectId: string, base: null, sort: string, direction: string, perPage: number, filters: Filters, fullReports: boolean): Promise<ApiResponse<Json[]>>
      viewEventById(projectId: string, eventId: string): Promise<ApiResponse<Json>>
      updateErrorOnProject(projectId: string, errorId: string, body: Json): Promise<ApiResponse<Json>>
      getPivotValuesOnAnError(projectId: string, errorId: string, filters: Filters, summarySize: number): Promise<ApiResponse<Json[]>>
    }
    projectApi: {
      listProjectReleaseGroups(projectId: string, releaseStage: string, topOnly: boolean, visibleOnly: boolean, perPage: number, nextUrl?: string): Promise<ApiResponse<Json[]>>
      getProjectReleaseById(projectId: string, releaseId: string): Promise<ApiResponse<Json>>
      getReleaseGroup(releaseId: string): Promise<ApiResponse<Json>>
    }
  }
}

declare module '@smartbear/mcp/dist/bugsnag/tool/*' {
  import type { BugsnagClient } from '@smartbear/mcp/dist/bugsnag/client.js'
  interface ToolResult {
    content: Array<{ type: string; text: string }>
  }
  class McpTool {
    constructor(client: BugsnagClient, getInput?: (request: unknown) => Promise<{ action: string; content?: Record<string, unknown> }>)
    specification: { title: string }
    handle(args: Record<string, unknown>, ctx: unknown): Promise<ToolResult>
  }
  export { McpTool as GetError, McpTool as ListProjectErrors, McpTool as UpdateError, McpTool as GetEvent }
  export { McpTool as ListErrorEvents, McpTool as ListReleases, McpTool as ListProjectEventFilters, McpTool as ListProjects }
}
