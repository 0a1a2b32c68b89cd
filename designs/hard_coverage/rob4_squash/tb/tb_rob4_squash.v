`timescale 1ns/1ps
// Self-checking testbench for rob4_squash. A model is stepped at each rising edge and
// every output is compared each cycle; retired tags are also checked against the
// allocation order (no entry retires twice or out of order). The directed part reaches
// every functional bin of coverage.yaml: stray and duplicate completions, an alloc when
// full, reverse-order completion and four retirements in a row (also across the wrap), a
// head waiting 63 cycles, squashes from a full buffer at every age, a flush of a full
// buffer; then 8000 cycles of
// random traffic with rare kills and flushes and a reset.
module tb_rob4_squash;
    reg        clk = 1'b0;
    reg        rst;
    reg        alloc, cpl_valid, kill, flush;
    reg  [1:0] cpl_tag;
    wire [2:0] count, ret_run;
    wire [1:0] head, tail, ret_tag, squashed, cpl_age;
    wire       stall, ret_valid, cpl_ok, cpl_bad, cpl_dup, squash, cpl_kill, full, empty, flushed;
    wire [2:0] flush_lost;
    wire [5:0] head_wait;

    rob4_squash dut (.clk(clk), .rst(rst), .alloc(alloc), .cpl_valid(cpl_valid), .cpl_tag(cpl_tag), .kill(kill), .flush(flush),
                     .count(count), .head(head), .tail(tail), .stall(stall), .ret_valid(ret_valid),
                     .ret_tag(ret_tag), .cpl_ok(cpl_ok), .cpl_bad(cpl_bad), .cpl_dup(cpl_dup), .squash(squash),
                     .squashed(squashed), .cpl_age(cpl_age), .cpl_kill(cpl_kill), .ret_run(ret_run),
                     .head_wait(head_wait), .flushed(flushed), .flush_lost(flush_lost), .full(full), .empty(empty));

    always #5 clk = ~clk;

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    reg [3:0] mv, md, nv, nd;
    integer m_count, m_head, m_tail, m_stall, m_ret, m_rtag, m_ok, m_bad, m_dup, m_sq, m_sqn, m_age, m_kill;
    integer m_fl, m_flost, n_fl, m_run, m_wait, age, younger, i, errors, n, n_ret, n_sq, n_four, expect_tag;
    reg retire, good, sq, take;

    task check;
        begin
            if (count !== m_count[2:0] || head !== m_head[1:0] || tail !== m_tail[1:0] || stall !== m_stall[0] ||
                ret_valid !== m_ret[0] || (m_ret && ret_tag !== m_rtag[1:0]) || cpl_ok !== m_ok[0] ||
                cpl_bad !== m_bad[0] || cpl_dup !== m_dup[0] || squash !== m_sq[0] ||
                (m_sq && squashed !== m_sqn[1:0]) || (m_ok && (cpl_age !== m_age[1:0] || cpl_kill !== m_kill[0])) ||
                ret_run !== m_run[2:0] || flushed !== m_fl[0] || (m_fl && flush_lost !== m_flost[2:0]) || head_wait !== m_wait[5:0] || full !== (m_count == 4) ||
                empty !== (m_count == 0)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: count=%0d head=%0d tail=%0d ret=%b run=%0d wait=%0d expected %0d %0d %0d %0d %0d %0d",
                             $time, count, head, tail, ret_valid, ret_run, head_wait,
                             m_count, m_head, m_tail, m_ret, m_run, m_wait);
            end
        end
    endtask

    task model_step;
        begin
            if (rst) begin
                mv = 0; md = 0; m_count = 0; m_head = 0; m_tail = 0; m_stall = 0; m_ret = 0; m_rtag = 0;
                m_ok = 0; m_bad = 0; m_dup = 0; m_sq = 0; m_sqn = 0; m_age = 0; m_kill = 0; m_run = 0; m_wait = 0;
                expect_tag = 0; m_fl = 0; m_flost = 0;
            end else if (flush) begin
                m_fl = 1; m_flost = m_count; n_fl = n_fl + 1;
                mv = 0; md = 0; m_count = 0; m_tail = m_head; m_stall = alloc; m_ret = 0; m_ok = 0; m_bad = 0;
                m_dup = 0; m_sq = 0; m_run = 0; m_wait = 0; expect_tag = m_head;
            end else begin
                m_fl = 0;
                age     = (cpl_tag - m_head) & 3;
                retire  = mv[m_head] && md[m_head];
                good    = cpl_valid && mv[cpl_tag] && !md[cpl_tag];
                sq      = good && kill;
                younger = m_count - 1 - age;
                take    = alloc && m_count != 4 && !sq;
                m_stall = alloc && !take;
                m_ret   = retire;
                m_ok    = good;
                m_bad   = cpl_valid && !mv[cpl_tag];
                m_dup   = cpl_valid && mv[cpl_tag] && md[cpl_tag];
                m_sq    = sq;
                if (good) begin m_age = age; m_kill = kill; end
                if (sq) begin m_sqn = younger; n_sq = n_sq + 1; end
                if (retire) begin
                    if (m_head != expect_tag) begin
                        errors = errors + 1; $display("MISMATCH: retired %0d, expected %0d", m_head, expect_tag);
                    end
                    m_rtag = m_head;
                    expect_tag = (m_head + 1) & 3;
                    n_ret = n_ret + 1;
                end
                if (mv[m_head] && !md[m_head] && !(good && cpl_tag == m_head)) begin
                    if (m_wait != 63) m_wait = m_wait + 1;
                end else m_wait = 0;
                nv = mv; nd = md;
                for (i = 0; i < 4; i = i + 1) begin
                    if (retire && m_head == i) begin nv[i] = 0; nd[i] = 0; end
                    else if (sq && ((i - m_head) & 3) > age) begin nv[i] = 0; nd[i] = 0; end
                    else if (good && cpl_tag == i) nd[i] = 1;
                    else if (take && m_tail == i) begin nv[i] = 1; nd[i] = 0; end
                end
                mv = nv; md = nd;
                if (sq) begin m_tail = (cpl_tag + 1) & 3; m_count = m_count - younger - retire; end
                else begin m_tail = (m_tail + take) & 3; m_count = m_count + take - retire; end
                if (retire) begin
                    m_head = (m_head + 1) & 3;
                    if (m_run != 4) m_run = m_run + 1;
                    if (m_run == 4) n_four = n_four + 1;
                end else m_run = 0;
            end
        end
    endtask

    task cycle;
        input a; input c; input [1:0] t; input k;
        begin
            @(negedge clk);
            check;
            alloc = a; cpl_valid = c; cpl_tag = t; kill = k; flush = 0;
            @(posedge clk); model_step;
        end
    endtask

    task fill;
        begin
            while (m_count < 4) cycle(1, 0, 0, 0);
        end
    endtask

    task drain;
        integer k, t;
        begin
            while (m_count != 0) begin
                t = -1;
                for (k = 0; k < m_count; k = k + 1)
                    if (!md[(m_head + k) & 3]) t = (m_head + k) & 3;
                if (t >= 0) cycle(0, 1, t, 0); else cycle(0, 0, 0, 0);
            end
            cycle(0, 0, 0, 0);
        end
    endtask

    initial begin
        seed = 32'hBADC_0DE5; errors = 0; n_ret = 0; n_sq = 0; n_four = 0;
        rst = 1'b1; alloc = 0; cpl_valid = 0; cpl_tag = 0; kill = 0; flush = 0; n_fl = 0;
        @(posedge clk); model_step;
        @(negedge clk); rst = 1'b0;
        @(posedge clk); model_step;
        cycle(0, 0, 0, 0);
        cycle(0, 1, 1, 0);                                  // stray completion
        fill(); cycle(1, 0, 0, 0);                          // alloc when full
        cycle(0, 1, (m_head + 3) & 3, 0); cycle(0, 1, (m_head + 2) & 3, 0); cycle(0, 1, (m_head + 1) & 3, 0);
        cycle(0, 1, (m_head + 2) & 3, 0);                   // duplicate
        cycle(0, 1, m_head, 0);                             // head last
        repeat (5) cycle(0, 0, 0, 0);
        cycle(1, 0, 0, 0); cycle(1, 0, 0, 0);
        repeat (70) cycle(0, 0, 0, 0);                      // head waits
        cycle(0, 1, (m_head + 1) & 3, 0); cycle(0, 1, m_head, 0);
        repeat (3) cycle(0, 0, 0, 0);
        for (n = 0; n < 4; n = n + 1) begin                 // squash from full at each age
            fill(); cycle(0, 1, (m_head + n) & 3, 1); drain();
        end
        cycle(1, 0, 0, 0); cycle(0, 1, m_head, 0); cycle(0, 0, 0, 0); cycle(0, 0, 0, 0);
        fill();
        cycle(0, 1, (m_head + 3) & 3, 0); cycle(0, 1, (m_head + 2) & 3, 0); cycle(0, 1, (m_head + 1) & 3, 0);
        cycle(0, 1, m_head, 0);
        repeat (6) cycle(0, 0, 0, 0);
        fill(); cycle(0, 1, (m_head + 2) & 3, 0);           // flush of a full buffer
        @(negedge clk); check; alloc = 1; flush = 1;
        @(posedge clk); model_step;
        cycle(0, 0, 0, 0);
        if (n_four < 2 || n_sq != 4) begin errors = errors + 1; $display("MISMATCH: directed part: four=%0d sq=%0d", n_four, n_sq); end
        for (n = 0; n < 8000; n = n + 1) begin
            cycle(urand(0) % 3 != 0, urand(0) % 2, urand(0), urand(0) % 16 == 0);
            if (urand(0) % 200 == 0) begin
                @(negedge clk); check; alloc = urand(0); flush = 1;
                @(posedge clk); model_step;
            end
            if (n == 5000) begin
                @(negedge clk); check; rst = 1'b1;
                @(posedge clk); model_step;
                @(negedge clk); check; rst = 1'b0;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk); check;
        if (n_ret < 1000 || n_sq < 50 || n_fl < 10) begin errors = errors + 1; $display("coverage: ret=%0d sq=%0d", n_ret, n_sq); end
        if (errors == 0) $display("TEST PASSED (%0d retired, %0d squashes, %0d runs of four)", n_ret, n_sq, n_four);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
