`timescale 1ns/1ps
// Self-checking testbench for tag_cache4. A model (tags, valid bits, LRU ages) is stepped
// at each rising edge and every output is compared each cycle. The directed part reaches
// every functional bin of coverage.yaml: a miss when empty, fills up to full, a hit on
// every entry at every LRU age (each order of touches, then the lookup), a refresh (dup)
// of every entry, misses and hits when full, an eviction of every entry, flushes when
// partly filled and when full. Then 6000 cycles of random operations over a small pool of
// tags (so that hits, refreshes and evictions are frequent) with rare flushes and resets.
module tb_tag_cache4;
    reg         clk = 1'b0;
    reg         rst_n;
    reg  [1:0]  op;
    reg  [11:0] tag;
    wire        hit, miss, filled, evict, dup, full;
    wire [1:0]  idx, hit_age;
    wire [3:0]  valid;

    tag_cache4 dut (.clk(clk), .rst_n(rst_n), .op(op), .tag(tag), .hit(hit), .miss(miss),
                    .filled(filled), .evict(evict), .dup(dup), .idx(idx), .hit_age(hit_age),
                    .valid(valid), .full(full));

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

    reg  [11:0] m_tag [0:3];
    integer     m_age [0:3];
    reg  [3:0]  m_valid;
    reg         m_hit, m_miss, m_filled, m_evict, m_dup;
    integer     m_idx, m_hage;
    integer     errors, n, i, e, a, t, t_age, found, n_hit, n_evict, n_dup;
    integer     order [0:3];

    task check;
        begin
            if (hit !== m_hit || miss !== m_miss || filled !== m_filled || evict !== m_evict ||
                dup !== m_dup || idx !== m_idx[1:0] || hit_age !== m_hage[1:0] ||
                valid !== m_valid || full !== (m_valid == 4'hF)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: hit=%b miss=%b filled=%b evict=%b dup=%b idx=%0d age=%0d valid=%b expected %b %b %b %b %b %0d %0d %b",
                             $time, hit, miss, filled, evict, dup, idx, hit_age, valid,
                             m_hit, m_miss, m_filled, m_evict, m_dup, m_idx, m_hage, m_valid);
            end
        end
    endtask

    task model_reset;
        begin
            m_valid = 0; m_hit = 0; m_miss = 0; m_filled = 0; m_evict = 0; m_dup = 0;
            m_idx = 0; m_hage = 0;
            for (i = 0; i < 4; i = i + 1) begin m_tag[i] = 0; m_age[i] = i; end
        end
    endtask

    task model_step;
        begin
            found = -1;
            for (i = 3; i >= 0; i = i - 1) if (m_valid[i] && m_tag[i] == tag) found = i;
            m_hit = (op == 1) && found >= 0;
            m_miss = (op == 1) && found < 0;
            m_filled = (op == 2) && found < 0;
            m_evict = m_filled && m_valid == 4'hF;
            m_dup = (op == 2) && found >= 0;
            if (found >= 0) t = found;
            else if (m_valid == 4'hF) begin
                for (i = 0; i < 4; i = i + 1) if (m_age[i] == 3) t = i;
            end else begin
                t = -1;
                for (i = 3; i >= 0; i = i - 1) if (!m_valid[i]) t = i;
            end
            if (op == 3) begin
                m_valid = 0;
                for (i = 0; i < 4; i = i + 1) m_age[i] = i;
            end else if (op == 2 || m_hit) begin
                m_idx = t;
                t_age = m_age[t];
                if (m_hit) begin m_hage = t_age; n_hit = n_hit + 1; end
                if (m_evict) n_evict = n_evict + 1;
                if (m_dup) n_dup = n_dup + 1;
                for (i = 0; i < 4; i = i + 1)
                    if (i == t) m_age[i] = 0;
                    else if (m_age[i] < t_age) m_age[i] = m_age[i] + 1;
                if (m_filled) begin m_valid[t] = 1'b1; m_tag[t] = tag; end
            end
        end
    endtask

    task cycle;
        input [1:0] o; input [11:0] g;
        begin
            @(negedge clk);
            check;
            op = o; tag = g;
            @(posedge clk);
            model_step;
        end
    endtask

    initial begin
        errors = 0; n_hit = 0; n_evict = 0; n_dup = 0;
        seed = 32'h7A9C_4E21;
        op = 0; tag = 0;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        cycle(1, 12'h100);                                      // miss when empty
        cycle(2, 12'h100); cycle(1, 12'h100);                   // fill, hit (not full)
        cycle(2, 12'h101); cycle(2, 12'h102); cycle(0, 0); cycle(2, 12'h103);   // full
        cycle(1, 12'h555);                                      // miss when full
        // a hit on entry e at age a: touch the others, e in position 3 - a, then look e up
        for (e = 0; e < 4; e = e + 1)
            for (a = 0; a < 4; a = a + 1) begin
                order[3 - a] = e;
                t = 0;
                for (i = 0; i < 4; i = i + 1) begin
                    if (i != 3 - a) begin
                        if (t == e) t = t + 1;
                        order[i] = t;
                        t = t + 1;
                    end
                end
                for (i = 0; i < 4; i = i + 1) cycle(1, m_tag[order[i]]);
                cycle(1, m_tag[e]);
            end
        for (e = 0; e < 4; e = e + 1) cycle(2, m_tag[e]);       // refresh each entry
        for (e = 0; e < 4; e = e + 1) cycle(2, 12'h200 + e);    // evict each entry
        cycle(3, 0);                                            // flush when full
        cycle(2, 12'h300); cycle(2, 12'h301); cycle(3, 0);      // flush when partly filled
        cycle(3, 0);                                            // flush when empty
        for (n = 0; n < 6000; n = n + 1) begin
            a = urand(0) % 100;
            cycle(a < 2 ? 3 : a < 40 ? 2 : a < 85 ? 1 : 0,
                  (urand(0) % 8 == 0) ? urand(0) : 12'h400 + urand(0) % 7);
            if (urand(0) % 3000 == 0) begin
                @(negedge clk); check; op = 0;
                rst_n = 1'b0;
                #1 model_reset;
                check;
                @(posedge clk); #1 rst_n = 1'b1;
            end
        end
        @(negedge clk);
        check;
        if (n_hit < 100 || n_evict < 100 || n_dup < 100) begin
            $display("coverage: hits=%0d evictions=%0d refreshes=%0d", n_hit, n_evict, n_dup);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d hits, %0d evictions, %0d refreshes)", n_hit, n_evict, n_dup);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
