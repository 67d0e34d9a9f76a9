/* The pod sandbox's process (what Kubernetes' own pause image runs): hold the pod's namespaces,
   reap orphaned children, exit on SIGINT/SIGTERM. Built static, packed as localhost/pause:3.10. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void sigdown(int signo) { psignal(signo, "Shutting down, got signal"); exit(0); }
static void sigreap(int signo) { (void)signo; while (waitpid(-1, NULL, WNOHANG) > 0); }
int main(void) {
  if (getpid() != 1) fprintf(stderr, "Warning: pause should be the first process\n");
  struct sigaction down = {.sa_handler = sigdown}, reap = {.sa_handler = sigreap, .sa_flags = SA_NOCLDSTOP};
  sigaction(SIGINT, &down, NULL); sigaction(SIGTERM, &down, NULL); sigaction(SIGCHLD, &reap, NULL);
  for (;;) pause();
}
