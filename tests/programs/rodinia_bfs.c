/*
 * rodinia_bfs.c - breadth-first search after Rodinia's OpenMP bfs: node
 * masks instead of queues; each level one parallel loop expands the
 * frontier (threads may write the same cost and the same "updating" flag
 * to a neighbour, always the same value) and a second one turns the
 * updated nodes into the next frontier and sets a shared "continue" flag
 * that any thread may write.  A random graph of 6000 nodes, the costs
 * against a serial queue-based BFS.
 *
 * Corpus program (tests/programs): exits 1 when wrong.
 */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES 6000
#define DEGREE 3

struct node {
    int starting;
    int no_of_edges;
};

int main(void)
{
    struct node *graph = malloc(NODES * sizeof *graph);
    int *edges = malloc(NODES * DEGREE * 2 * sizeof *edges);
    bool *mask = calloc(NODES, sizeof *mask);
    bool *updating = calloc(NODES, sizeof *updating);
    bool *visited = calloc(NODES, sizeof *visited);
    int *cost = malloc(NODES * sizeof *cost);
    unsigned seed = 5;
    int errors = 0;

    /* each node links to DEGREE random nodes and to its successor's
     * successor, so the graph is mostly connected and not too shallow */
    int ne = 0;
    for (int i = 0; i < NODES; i++) {
        graph[i].starting = ne;
        for (int d = 0; d < DEGREE; d++) {
            seed = seed * 1103515245u + 12345u;
            int near = (seed >> 16) % 2 == 0;
            int to = near ? (i + 1 + (int)((seed >> 8) % 7)) % NODES
                          : (int)((seed >> 12) % NODES);
            edges[ne++] = to;
        }
        edges[ne++] = (i + 2) % NODES;
        graph[i].no_of_edges = ne - graph[i].starting;
    }
    for (int i = 0; i < NODES; i++)
        cost[i] = -1;
    int source = 0;
    mask[source] = true;
    visited[source] = true;
    cost[source] = 0;

    bool stop;
    int levels = 0;
    do {
        stop = false;
#pragma omp parallel for
        for (int tid = 0; tid < NODES; tid++) {
            if (mask[tid]) {
                mask[tid] = false;
                for (int e = graph[tid].starting;
                     e < graph[tid].starting + graph[tid].no_of_edges; e++) {
                    int id = edges[e];
                    if (!visited[id]) {
                        cost[id] = cost[tid] + 1;
                        updating[id] = true;
                    }
                }
            }
        }
#pragma omp parallel for
        for (int tid = 0; tid < NODES; tid++) {
            if (updating[tid]) {
                mask[tid] = true;
                visited[tid] = true;
                stop = true;
                updating[tid] = false;
            }
        }
        levels++;
    } while (stop);

    int *want = malloc(NODES * sizeof *want);
    int *queue = malloc(NODES * sizeof *queue);
    for (int i = 0; i < NODES; i++)
        want[i] = -1;
    int head = 0, tail = 0;
    want[source] = 0;
    queue[tail++] = source;
    while (head < tail) {
        int u = queue[head++];
        for (int e = graph[u].starting;
             e < graph[u].starting + graph[u].no_of_edges; e++)
            if (want[edges[e]] < 0) {
                want[edges[e]] = want[u] + 1;
                queue[tail++] = edges[e];
            }
    }
    long sum = 0;
    int reached = 0, depth = 0;
    for (int i = 0; i < NODES; i++) {
        if (cost[i] != want[i])
            errors++;
        if (cost[i] >= 0) {
            reached++;
            sum += cost[i];
            if (cost[i] > depth)
                depth = cost[i];
        }
    }
    printf("result: reached %d depth %d levels %d cost sum %ld\n", reached,
           depth, levels, sum);
    free(graph);
    free(edges);
    free(mask);
    free(updating);
    free(visited);
    free(cost);
    free(want);
    free(queue);
    if (errors)
        fprintf(stderr, "rodinia_bfs: %d costs differ\n", errors);
    return errors ? 1 : 0;
}
