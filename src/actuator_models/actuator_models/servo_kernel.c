/* The compiled twin of actuator_models.simulation's servo step (see kernel.py for what it computes
 * and why): many parameter sets x logs, each (set, log) an independent scalar rollout.
 *
 * The arithmetic is simulation.py's step, operation for operation and in its order (compiled with
 * -ffp-contract=off, no fast-math: no fused or reordered operation), so that every number equals the
 * numpy reference's (tests/kernel_oracle.py checks every law, friction model, integrator and
 * addition to 1e-12). min/max are Python's (the first argument unless the second is strictly
 * greater/smaller: NaN handling included).
 *
 * Columns of the parameter matrix are found by name in Python (kernel.COLUMNS, from the parts'
 * declarations) and handed in as indices (Batch.columns), one per slot of SLOTS below, whose
 * declared names kernel.py reads from this library (servo_slot).
 * The work is spread over Batch.threads POSIX threads, each taking the next (pair of sets, log)
 * job from a shared counter. No global state; nothing here calls Python. */

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* The parameters the step reads: its slot name here, the parameter's declared name (kernel.py hands
 * in, for each, that name's column of the parameter matrix: servo_slot). */
#define SLOTS(X) \
    X(KT, "kt") X(R, "R") X(ARMATURE, "armature") X(Q_OFFSET, "q_offset") \
    X(ERROR_GAIN_RATIO, "error_gain_ratio") X(TARGET_SPEED_LIMIT, "target_speed_limit") \
    X(KC, "friction_base") X(KV, "friction_viscous") X(KCS, "friction_stribeck") X(VS, "dtheta_stribeck") \
    X(ALPHA, "alpha") X(KL, "load_friction_base") X(KLS, "load_friction_stribeck") \
    X(KM, "load_friction_motor") X(KE, "load_friction_external") X(KMS, "load_friction_motor_stribeck") \
    X(KES, "load_friction_external_stribeck") X(KMQ, "load_friction_motor_quad") \
    X(KEQ, "load_friction_external_quad") X(LATENCY, "latency") X(BACKLASH, "backlash") X(HEATING, "heating") \
    X(SUPPLY, "supply_resistance") X(THERMAL_ALPHA, "thermal_alpha") X(RW, "thermal_winding_resistance") \
    X(CW, "thermal_winding_capacity") X(RC, "thermal_case_resistance") X(CC, "thermal_case_capacity") \
    X(AMBIENT, "thermal_ambient") X(INITIAL, "thermal_initial") \
    X(RELEASED_ARMATURE, "release_armature_share") X(RELEASED_FRICTION, "release_friction_share")

enum Column {
#define AS_ENUM(slot, name) C_##slot,
    SLOTS(AS_ENUM)
#undef AS_ENUM
    N_COLUMNS
};

static const char *const SLOT_NAMES[N_COLUMNS] = {
#define AS_NAME(slot, name) name,
    SLOTS(AS_NAME)
#undef AS_NAME
};

/* One call's inputs and outputs (kernel.py's ctypes.Structure of the same name and order). Arrays
 * are C-contiguous float64 unless said: (P, K) params, (L, T) per-step logs, (L,) per-log values. */
typedef struct {
    int64_t law, kind, semi, delayed, played, heated, write, threads;
    int64_t sets, logs, steps, width;   /* P, L, T and K (the parameter matrix's columns) */
    const int64_t *columns;             /* (N_COLUMNS,) index of each enum slot in a params row */
    const double *consts;               /* (3,) the control law's constants */
    const double *params;               /* (P, K) in the units the parameters declare */
    const double *goal;                 /* (L, T) [rad], as position; speed [rad/s] */
    const uint8_t *enable;              /* (L, T) bool */
    const double *warming;              /* (L, T) [K] logged temperature above the reference */
    const double *reading;              /* (L, T) [degC] or NULL: thermal off */
    const double *position, *speed;
    const int64_t *lengths;             /* (L,) steps of each log */
    const double *mass, *length, *arm_mass, *kp, *vin, *dt;  /* (L,) [kg], [m], [kg], the law's gain, [V], [s] */
    double *out;                        /* (P, L, T) positions, with write */
    double *maes, *heat_maes;           /* (P, L) */
} Batch;

typedef struct { double v[N_COLUMNS]; } Params;

typedef struct {
    double inertia, released;               /* [kg m^2] torque on, off (release: less armature) */
    double whole, fraction, half;           /* latency whole steps, its fraction, half backlash [rad] */
    int64_t held;                           /* steps the torque switch is held */
} Constants;

typedef struct { double y, q, v, target, tw, tc, error, heat_error; } State;

typedef struct {  /* one log's inputs */
    const double *goal, *warming, *reading, *position;
    const uint8_t *enable;
    double mass, length, arm_mass, kp, vin, dt, speed0;  /* speed0: the logged speed at step 0 [rad/s] */
    int64_t scored;
} Log;

/* What a call simulates, fixed for all its jobs: the control law (0 voltage, 1 current PD, 2 current, 3
 * STS), the friction model (1-6), the integrator (semi-implicit or not) and the additions carried
 * (thermal: the logs have a reading column). Passed by value to the always-inlined step so that the
 * compiler can specialise it for a constant set of switches (SPECIALISED). */
typedef struct { int64_t law, kind, semi, delayed, played, heated, thermal; } Switches;

/* The default fit's switches (M6, voltage law, latency and backlash not carried, thermal carried):
 * its step is compiled with them as constants, the same operations in the same order, fewer branches. */
#define SPECIALISED ((Switches){.law = 0, .kind = 6, .semi = 0, .delayed = 0, .played = 0, .heated = 0, .thermal = 1})

#define INLINE static inline __attribute__((always_inline))

static inline double py_max(double a, double b) { return b > a ? b : a; }
static inline double py_min(double a, double b) { return b < a ? b : a; }
static inline double clamp(double x, double low, double high) { return py_min(py_max(x, low), high); }
static inline int64_t imax(int64_t a, int64_t b) { return b > a ? b : a; }

static inline double stribeck(double v, double vs, double alpha) { return exp(-pow(fabs(v / vs), alpha)); }

/* The friction model's torque budget [N m] (friction.py, M1-M6 by code 1-6). */
INLINE double budget(int64_t kind, double tm, double te, double v, const double *p) {
    double kv = p[C_KV], kc = p[C_KC];
    double m1 = kv * fabs(v) + kc;
    if (kind == 1) return m1;
    if (kind == 2) return m1 + stribeck(v, p[C_VS], p[C_ALPHA]) * p[C_KCS];
    if (kind == 3) return m1 + p[C_KL] * fabs(tm - te);
    if (kind == 4) {
        double load = fabs(tm - te);
        return (m1 + p[C_KL] * fabs(tm - te)) + stribeck(v, p[C_VS], p[C_ALPHA]) * (p[C_KCS] + p[C_KLS] * load);
    }
    double quadratic = 0.0;
    if (kind == 6) {
        quadratic = fabs(tm) > fabs(te) ? p[C_KEQ] * (te * te) : p[C_KMQ] * (tm * tm);
        if (!(tm * te < 0)) quadratic = 0.0;
    }
    double base = kv * fabs(v) + kc + fabs(p[C_KM] * tm - p[C_KE] * te);
    double at_rest = p[C_KCS] + fabs(p[C_KMS] * tm - p[C_KES] * te) + quadratic;
    return base + stribeck(v, p[C_VS], p[C_ALPHA]) * at_rest;
}

/* The motor torque [N m] towards `goal` [rad] at q [rad], v [rad/s] of the voltage laws (0, and the
 * STS law 3 after its firmware), the current PD law (1) or the current law (2), with the winding's
 * resistance r [ohm]; the supply addition's resistance (0 without it) sags the voltage laws. */
INLINE double motor(const Batch *b, int64_t law, const double *p, const Log *log, double goal, double q, double v,
                    int enable, double r) {
    const double *c = b->consts;
    double kp = log->kp, vin = log->vin, kt = p[C_KT], rs = p[C_SUPPLY];
    if (law == 0 || law == 3) {
        double duty = clamp(kp * c[0] * (goal - q), -c[1], c[1]);
        double volts = vin * duty;
        if (!enable) return 0.0;
        r = r + rs * (volts / vin) * (volts / vin);
        return kt * volts / r - (kt * kt) * v / r;
    }
    double on = enable ? 1.0 : 0.0;
    if (law == 1) {
        double current = clamp(kp * (goal - q) - c[0] * sqrt(kp) * v, -c[1], c[1]);
        double limit = kt / r * c[2];
        double emf = (kt * kt) * v / r;
        return clamp(kt * current * on, -limit - emf, limit - emf);
    }
    double current = clamp(kp * (goal - q), -c[0], c[0]);
    double low = (-vin - kt * v) / r;
    double high = (vin - kt * v) / r;
    return kt * clamp(current, low, high) * on;
}

/* One set's constants on one log, and its start state (the log's first position and speed). */
static inline Constants lane(const double *p, const Log *log, State *state) {
    double q = log->position[0], v = log->speed0;
    Constants k;
    double l2 = log->length * log->length;
    double pendulum = log->mass * l2 + log->arm_mass * l2 / 3;  /* Pendulum.inertia's sum before the armature */
    k.inertia = pendulum + p[C_ARMATURE];
    k.released = pendulum + p[C_ARMATURE] * (1.0 - p[C_RELEASED_ARMATURE] * 1.0);
    double delay = p[C_LATENCY] / log->dt;
    k.whole = (double)(int64_t)floor(delay);
    k.fraction = delay - k.whole;
    k.held = (int64_t)k.whole + (k.fraction > 0 ? 1 : 0);
    k.half = 0.5 * p[C_BACKLASH];
    double tw = 0.0;
    if (log->reading) tw = isnan(log->reading[0]) ? p[C_INITIAL] : log->reading[0];
    *state = (State){q, q, v, q, tw, tw, 0.0, 0.0};
    return k;
}

/* Step k of one parameter set on one log (simulation.py's step; the errors of step k's output
 * added to the sums). */
INLINE void step(const Batch *b, const Switches w, const double *p, const Log *log, const Constants *kc, int64_t k, State *s) {
    double y = s->y, v = s->v;
    s->error += fabs(y - log->position[k]);
    if (w.thermal && k < log->scored && !isnan(log->reading[k])) s->heat_error += fabs(s->tc - log->reading[k]);
    double g = log->goal[k];
    int en = log->enable[k];
    if (w.delayed) {
        int64_t whole = (int64_t)kc->whole;
        int64_t at = imax(k - whole, 0);
        g = log->goal[at] + kc->fraction * (log->goal[imax(k - whole - 1, 0)] - log->goal[at]);
        en = log->enable[imax(k - kc->held, 0)];
    }
    double setpoint = g;
    if (w.law == 3) {  /* Feetech STS: the smoothed target, then the setpoint (SpeedLimitedVoltage.firmware) */
        if (!en) {
            s->target = y;
            setpoint = y;
        } else {
            double most = p[C_TARGET_SPEED_LIMIT] * log->dt;
            s->target = s->target + clamp(g - s->target, -most, most);
            setpoint = y + p[C_ERROR_GAIN_RATIO] * (s->target - y);
        }
    }
    double r = p[C_R];
    if (w.heated) r = p[C_R] * (1.0 + p[C_HEATING] * log->warming[k]);
    if (w.thermal) r = r * (1.0 + p[C_THERMAL_ALPHA] * (s->tw - 25.0));
    double tm = motor(b, w.law, p, log, setpoint, y, v, en, r);
    if (w.thermal) {  /* the copper losses of the step's current heat the winding (addition_thermal.heat_step) */
        double current = tm / p[C_KT];
        double power = current * current * r;
        double flow = (s->tw - s->tc) / p[C_RW];
        double loss = (s->tc - p[C_AMBIENT]) / p[C_RC];
        double tw = s->tw + log->dt * ((power - flow) / p[C_CW]);
        s->tc = s->tc + log->dt * ((flow - loss) / p[C_CC]);
        s->tw = tw;
    }
    double te = -(log->mass + log->arm_mass / 2) * 9.80665 * log->length * sin(y + p[C_Q_OFFSET]);
    double tfm = budget(w.kind, tm, te, v, p);
    double inertia = kc->inertia;
    if (!en) {  /* the release addition (addition_release.released; its shares are 0 when not carried) */
        inertia = kc->released;
        tfm = tfm * (1.0 - p[C_RELEASED_FRICTION] * 1.0);
    }
    double stopping = inertia * v / log->dt + tm + te;
    double sign = stopping > 0 ? 1.0 : (stopping < 0 ? -1.0 : (stopping == 0 ? 0.0 : stopping));
    double tf = -sign * py_min(fabs(stopping), tfm);
    double a = (tm + te + tf) / inertia;
    v = clamp(v + a * log->dt, -100.0, 100.0);
    double q = w.semi ? s->q + v * log->dt : s->q + v * log->dt + 0.5 * a * (log->dt * log->dt);
    s->q = q;
    s->v = v;
    s->y = w.played ? clamp(y, q - kc->half, q + kc->half) : q;
}

static Log log_of(const Batch *b, int64_t j) {
    int64_t at = j * b->steps;
    return (Log){b->goal + at, b->warming + at, b->reading ? b->reading + at : NULL, b->position + at,
                 b->enable + at, b->mass[j], b->length[j], b->arm_mass[j], b->kp[j], b->vin[j], b->dt[j],
                 b->speed[at], b->lengths[j]};
}

static Params row(const Batch *b, int64_t i) {
    Params p;
    for (int c = 0; c < N_COLUMNS; c++) p.v[c] = b->params[i * b->width + b->columns[c]];
    return p;
}

/* The switches of a call on one log. */
static Switches switches(const Batch *b, const Log *log) {
    return (Switches){b->law, b->kind, b->semi, b->delayed, b->played, b->heated, log->reading != NULL};
}

static int specialised(Switches w) {
    Switches d = SPECIALISED;
    return w.law == d.law && w.kind == d.kind && w.semi == d.semi && w.delayed == d.delayed && w.played == d.played
           && w.heated == d.heated && w.thermal == d.thermal;
}

/* One set on log j for `steps` steps; with `out`, q before each step stored there. */
static State simulate(const Batch *b, const double *p, const Log *log, int64_t steps, double *out) {
    State s;
    Constants kc = lane(p, log, &s);
    Switches w = switches(b, log);
    for (int64_t k = 0; k < steps; k++) {
        if (out) out[k] = s.y;
        step(b, w, p, log, &kc, k, &s);
    }
    return s;
}

/* Two sets on the same log, stepped side by side: each set's arithmetic is simulate's, in its order
 * (the same numbers to the bit), but the two independent chains of dependent operations overlap in
 * the processor. */
INLINE void pair_loop(const Batch *b, const Switches w, const double *p, const double *p2, const Log *log,
                      State *s, State *s2) {
    Constants kc = lane(p, log, s);
    Constants kc2 = lane(p2, log, s2);
    for (int64_t k = 0; k < log->scored; k++) {
        step(b, w, p, log, &kc, k, s);
        step(b, w, p2, log, &kc2, k, s2);
    }
}

static void simulate_pair(const Batch *b, const double *p, const double *p2, const Log *log, State *s,
                          State *s2) {
    Switches w = switches(b, log);
    if (specialised(w))
        pair_loop(b, SPECIALISED, p, p2, log, s, s2);
    else
        pair_loop(b, w, p, p2, log, s, s2);
}

static void run_job(const Batch *b, int64_t job) {
    if (!b->write) {  /* parameter sets two by two on each log, the odd last one alone */
        int64_t i = 2 * (job / b->logs), j = job % b->logs;
        Log log = log_of(b, j);
        double n = (double)log.scored;
        Params p = row(b, i);
        State s;
        if (i + 1 < b->sets) {
            Params p2 = row(b, i + 1);
            State s2;
            simulate_pair(b, p.v, p2.v, &log, &s, &s2);
            b->maes[(i + 1) * b->logs + j] = s2.error / n;
            b->heat_maes[(i + 1) * b->logs + j] = s2.heat_error / n;
        } else {
            s = simulate(b, p.v, &log, log.scored, NULL);
        }
        b->maes[i * b->logs + j] = s.error / n;
        b->heat_maes[i * b->logs + j] = s.heat_error / n;
        return;
    }
    int64_t i = job / b->logs, j = job % b->logs;  /* every padded step simulated, as the numpy rollout does */
    Log log = log_of(b, j);
    double n = (double)log.scored;
    Params p = row(b, i);
    double *out = b->out + (i * b->logs + j) * b->steps;
    State s = simulate(b, p.v, &log, b->steps, out);
    b->heat_maes[i * b->logs + j] = s.heat_error / n;
    double total = 0.0;  /* the padded tail is not part of the error */
    for (int64_t k = 0; k < log.scored; k++) total += fabs(out[k] - log.position[k]);
    b->maes[i * b->logs + j] = total / n;
}

typedef struct {
    const Batch *batch;
    int64_t jobs;
    int64_t next;  /* the next job to take (atomic) */
} Queue;

static void *worker(void *arg) {
    Queue *queue = arg;
    for (;;) {
        int64_t job = __atomic_fetch_add(&queue->next, 1, __ATOMIC_RELAXED);
        if (job >= queue->jobs) return NULL;
        run_job(queue->batch, job);
    }
}

/* MAE [rad] and case-temperature MAE [K] of every (set, log) into b->maes and b->heat_maes (and the
 * positions into b->out with b->write), on the calling thread and up to b->threads - 1 more (fewer
 * where the system starts fewer: the jobs are shared out either way). Returns 0. */
int servo_batch(const Batch *b) {
    int64_t jobs = b->write ? b->sets * b->logs : (b->sets + 1) / 2 * b->logs;
    Queue queue = {b, jobs, 0};
    int64_t helpers = (b->threads < jobs ? b->threads : jobs) - 1;
    pthread_t threads[64];
    if (helpers > 64) helpers = 64;
    int64_t started = 0;
    for (; started < helpers; started++) {
        if (pthread_create(&threads[started], NULL, worker, &queue) != 0) break;
    }
    worker(&queue);
    for (int64_t t = 0; t < started; t++) pthread_join(threads[t], NULL);
    return 0;
}

/* How many parameters the step reads, and the declared name of the i-th (NULL past the last). */
int servo_columns(void) { return N_COLUMNS; }
const char *servo_slot(int64_t i) { return i >= 0 && i < N_COLUMNS ? SLOT_NAMES[i] : NULL; }
