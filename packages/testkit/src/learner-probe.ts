// The learner's gRPC client as the tests call it: @owrl/learner-client's LearnerClient, the one the
// CLI and the console use (run state, groups, trajectories, health, pause/resume with an optional
// control token, WatchRun), over a real socket.
export { LearnerClient as LearnerProbe } from '@owrl/learner-client';
