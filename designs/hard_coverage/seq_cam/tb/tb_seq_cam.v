`timescale 1ns/1ps
// Self-checking testbench for seq_cam: directed fill / hit-every-entry /
// replace / delete sequences, then 4000 random operations whose keys come
// from a small pool (so lookups hit and writes update), with asynchronous
// resets. A model of the table (first-free allocation, round-robin victim)
// checks every output each cycle.
module tb_seq_cam;
    reg        clk = 1'b0;
    reg        rst_n;
    reg  [1:0] op;
    reg  [7:0] key, wdata;
    wire       hit, miss, replaced, hit_recent;
    wire [7:0] rdata;
    wire [1:0] hit_idx;
    wire [2:0] count;
    wire [3:0] hit_seen;

    seq_cam dut (.clk(clk), .rst_n(rst_n), .op(op), .key(key), .wdata(wdata), .hit(hit), .miss(miss),
                 .rdata(rdata), .hit_idx(hit_idx), .replaced(replaced), .hit_recent(hit_recent),
                 .count(count), .hit_seen(hit_seen));

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

    reg [7:0] m_key [0:3];
    reg [7:0] m_val [0:3];
    reg [3:0] m_valid, m_seen;
    integer   m_repl, m_last, m_lastwr, i, n, m, errors, hits, repls;
    reg       e_hit, e_miss, e_repl, e_recent;
    reg [7:0] e_rdata;
    reg [1:0] e_idx;

    task model_reset;
        begin
            for (i = 0; i < 4; i = i + 1) begin m_key[i] = 0; m_val[i] = 0; end
            m_valid = 0; m_seen = 0; m_repl = 0; m_last = 0; m_lastwr = 0;
            e_hit = 0; e_miss = 0; e_repl = 0; e_recent = 0; e_rdata = 0; e_idx = 0;
        end
    endtask

    task check;
        begin
            if (hit !== e_hit || miss !== e_miss || replaced !== e_repl || hit_recent !== e_recent ||
                rdata !== e_rdata || hit_idx !== e_idx || hit_seen !== m_seen ||
                count !== m_valid[0] + m_valid[1] + m_valid[2] + m_valid[3]) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: hit=%b miss=%b rd=%h idx=%0d rep=%b rec=%b cnt=%0d seen=%b; expected %b %b %h %0d %b %b %b",
                             $time, hit, miss, rdata, hit_idx, replaced, hit_recent, count, hit_seen,
                             e_hit, e_miss, e_rdata, e_idx, e_repl, e_recent, m_seen);
            end
        end
    endtask

    task step;
        input [1:0] o; input [7:0] k; input [7:0] d;
        integer mi, fi, wr;
        begin
            @(negedge clk);
            check;
            op = o; key = k; wdata = d;
            @(posedge clk);
            mi = -1; fi = -1;
            for (i = 3; i >= 0; i = i - 1) begin
                if (m_valid[i] && m_key[i] == k) mi = i;
                if (!m_valid[i]) fi = i;
            end
            e_hit = 0; e_miss = 0; e_recent = 0; wr = 0;
            if (o == 1) begin
                wr = 1; e_repl = 0;
                if (mi >= 0) begin m_val[mi] = d; m_lastwr = mi; end
                else if (fi >= 0) begin m_key[fi] = k; m_val[fi] = d; m_valid[fi] = 1; m_lastwr = fi; end
                else begin
                    m_key[m_repl] = k; m_val[m_repl] = d; m_lastwr = m_repl;
                    m_repl = (m_repl + 1) % 4; e_repl = 1; repls = repls + 1;
                end
            end else if (o == 2) begin
                if (mi >= 0) begin
                    e_hit = 1; e_rdata = m_val[mi]; e_idx = mi; m_seen[mi] = 1'b1;
                    e_recent = m_last && (m_lastwr == mi); hits = hits + 1;
                end else e_miss = 1;
            end else if (o == 3) begin
                if (mi >= 0) m_valid[mi] = 0;
            end
            m_last = wr;
        end
    endtask

    initial begin
        errors = 0; hits = 0; repls = 0;
        seed = 32'hCA4E_0004;
        op = 0; key = 0; wdata = 0;
        rst_n = 0; model_reset;
        #12 rst_n = 1;
        for (n = 0; n < 4; n = n + 1) step(1, 8'h10 + n, 8'hA0 + n);     // fill
        for (n = 0; n < 4; n = n + 1) step(2, 8'h10 + n, 0);             // hit every entry
        step(1, 8'h20, 8'h55); step(2, 8'h20, 0);                        // replace, lookup just-written
        step(1, 8'h11, 8'h66); step(2, 8'h11, 0);                        // update
        step(3, 8'h12, 0); step(2, 8'h12, 0); step(1, 8'h30, 1);         // delete, refill
        for (n = 0; n < 4000; n = n + 1) begin
            m = urand(0) % 100;
            step(m < 10 ? 0 : m < 45 ? 1 : m < 85 ? 2 : 3, urand(0) % 12, urand(0));
            if ((urand(0) % 800) == 0) begin
                @(negedge clk); op = 0; #2 rst_n = 0; #1 model_reset; check; #1 rst_n = 1;
            end
        end
        @(negedge clk); check;
        if (hits < 500 || repls < 50) begin
            $display("coverage: %0d hits, %0d replacements", hits, repls);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
