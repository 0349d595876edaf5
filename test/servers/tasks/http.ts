/**
 * The task fixture over streamable HTTP on 127.0.0.1, in this process, so a test reads what the
 * server saw. The HTTP host is the v1 fixture's (../http.ts): `restart()` drops every socket and
 * session, as a redeploy behind a load balancer does, while the task store lives on.
 */
import { HttpFixture } from "../http.js";
import { buildTaskServer, newTaskState, SharedTaskStore, TaskJobs, type TaskFixtureState } from "./fixture.js";

export interface TaskFixture {
  readonly http: HttpFixture;
  readonly url: URL;
  readonly store: SharedTaskStore;
  readonly state: TaskFixtureState;
  close(): Promise<void>;
}

export async function startTaskFixture(): Promise<TaskFixture> {
  const state = newTaskState();
  const store = new SharedTaskStore(state);
  const jobs = new TaskJobs();
  const http = await new HttpFixture({ build: () => buildTaskServer(store, jobs, state) }).start();
  return {
    http,
    get url() {
      return http.url;
    },
    store,
    state,
    async close() {
      jobs.stopAll();
      store.forget();
      await http.close();
    },
  };
}
