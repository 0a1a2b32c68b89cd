`timescale 1ns/1ps
// Self-checking testbench for lru_cache_ctl. A cycle model of the cache (valid, dirty and
// tag per line, a pseudo-LRU tree per set, the miss and flush state) is stepped at each
// rising edge and every output is compared each cycle (memory addresses included); a
// memory model acknowledges each memory request after a set number of cycles. The directed part reaches every functional bin of coverage.yaml (with
// +vectors it prints its input rows, the rows of golden.json): four fills of a set, hits
// in every way leaving every tree state, dirty evictions of every way and a clean one,
// hits under a miss and the three refusals, flushes of a clean, a partly dirty and a
// fully dirty cache. Then 3000 cycles of random requests over a few addresses.
module tb_lru_cache_ctl;
    reg         clk = 1'b0;
    reg         rst;
    reg         req_valid, mem_ack;
    reg  [1:0]  req_op;
    reg  [15:0] req_addr;
    wire        resp_valid, mem_req, mem_we, fill_done, evict, evict_dirty, flush_done;
    wire [2:0]  resp_kind, lru_q;
    wire [1:0]  resp_way, refuse_why, fill_way, evict_way, state;
    wire [15:0] mem_addr;
    wire [4:0]  flush_wb;

    lru_cache_ctl dut (.clk(clk), .rst(rst), .req_valid(req_valid), .req_op(req_op), .req_addr(req_addr),
                       .mem_ack(mem_ack), .resp_valid(resp_valid), .resp_kind(resp_kind), .resp_way(resp_way),
                       .refuse_why(refuse_why), .lru_q(lru_q), .mem_req(mem_req), .mem_we(mem_we),
                       .mem_addr(mem_addr), .fill_done(fill_done), .fill_way(fill_way), .evict(evict),
                       .evict_dirty(evict_dirty), .evict_way(evict_way), .flush_done(flush_done),
                       .flush_wb(flush_wb), .state(state));

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

    // ---------------------------------------------------------------- the model
    reg [15:0] m_valid, m_dirty, m_maddr;
    reg [13:0] m_tag [0:15];
    reg [2:0]  m_plru [0:3];
    reg [1:0]  m_state, m_set, m_way, m_rway, m_why, m_fway, m_eway;
    reg [13:0] m_mtag;
    reg        m_wr, m_rv, m_mreq, m_mwe, m_fd, m_ev, m_evd, m_fld;
    reg [2:0]  m_kind, m_lru, tr;
    reg [3:0]  m_fidx, ln;
    reg [4:0]  m_fwb;
    integer    s, w, hw, v, i;

    function [2:0] touch;
        input [2:0] b;
        input [1:0] wy;
        touch = wy[1] ? {~wy[0], b[1], 1'b0} : {b[2], ~wy[0], 1'b1};
    endfunction

    task model_reset;
        begin
            m_valid = 0; m_dirty = 0; m_maddr = 0; m_state = 0; m_set = 0; m_way = 0; m_rway = 0; m_why = 0;
            m_fway = 0; m_eway = 0; m_mtag = 0; m_wr = 0; m_rv = 0; m_mreq = 0; m_mwe = 0; m_fd = 0; m_ev = 0;
            m_evd = 0; m_fld = 0; m_kind = 0; m_lru = 0; m_fidx = 0; m_fwb = 0;
            for (i = 0; i < 16; i = i + 1) m_tag[i] = 0;
            for (i = 0; i < 4; i = i + 1) m_plru[i] = 0;
        end
    endtask

    task model_step;
        reg [1:0] st;   // the state before this edge
        begin
            st = m_state;
            // the lookup, before this edge
            s = req_addr[1:0]; hw = -1; v = -1;
            for (w = 0; w < 4; w = w + 1)
                if (m_valid[4 * s + w] && m_tag[4 * s + w] == req_addr[15:2]) hw = w;
            for (w = 3; w >= 0; w = w - 1)
                if (!m_valid[4 * s + w]) v = w;
            tr = m_plru[s];
            if (v < 0) v = tr[0] ? (tr[2] ? 3 : 2) : (tr[1] ? 1 : 0);
            m_rv = req_valid; m_fd = 0; m_ev = 0; m_fld = 0;
            // memory side
            if (st == 1 && mem_ack) begin
                m_valid[4 * m_set + m_way] = 0; m_dirty[4 * m_set + m_way] = 0;
                m_mwe = 0; m_maddr = {m_mtag, m_set}; m_state = 2;
            end else if (st == 2 && mem_ack) begin
                m_valid[4 * m_set + m_way] = 1; m_dirty[4 * m_set + m_way] = m_wr; m_tag[4 * m_set + m_way] = m_mtag;
                m_plru[m_set] = touch(m_plru[m_set], m_way);
                m_mreq = 0; m_fd = 1; m_fway = m_way; m_state = 0;
            end else if (st == 3 && (!m_mreq || mem_ack)) begin
                if (!m_mreq && m_valid[m_fidx] && m_dirty[m_fidx]) begin
                    m_mreq = 1; m_mwe = 1; m_maddr = {m_tag[m_fidx], m_fidx[3:2]};
                end else begin
                    if (m_mreq) m_fwb = m_fwb + 1;
                    m_valid[m_fidx] = 0; m_dirty[m_fidx] = 0; m_mreq = 0; m_mwe = 0;
                    if (m_fidx == 15) begin
                        for (i = 0; i < 4; i = i + 1) m_plru[i] = 0;
                        m_fld = 1; m_state = 0;
                    end
                    m_fidx = m_fidx + 1;
                end
            end
            // the request
            if (req_valid) begin
                m_rway = (hw >= 0) ? hw : 0;
                if (req_op == 3)
                    m_kind = 6;
                else if (st == 3 || (req_op == 2 && st != 0)) begin
                    m_kind = 4; m_why = 3;
                end else if (req_op == 2) begin
                    m_kind = 5; m_state = 3; m_fidx = 0; m_fwb = 0;
                end else if (st != 0 && s == m_set) begin
                    m_kind = 4; m_why = 2;
                end else if (hw >= 0) begin
                    m_kind = req_op[0];
                    m_plru[s] = touch(tr, hw);
                    m_lru = m_plru[s];
                    if (req_op[0]) m_dirty[4 * s + hw] = 1;
                end else if (st != 0) begin
                    m_kind = 4; m_why = 1;
                end else begin
                    m_kind = 2 + req_op[0]; m_rway = v;
                    m_set = s; m_way = v; m_mtag = req_addr[15:2]; m_wr = req_op[0]; m_mreq = 1;
                    ln = 4 * s + v;
                    m_ev = m_valid[4 * s] && m_valid[4 * s + 1] && m_valid[4 * s + 2] && m_valid[4 * s + 3];
                    m_evd = m_ev && m_dirty[ln]; m_eway = v;
                    if (m_evd) begin
                        m_state = 1; m_mwe = 1; m_maddr = {m_tag[ln], s[1:0]};
                    end else begin
                        m_state = 2; m_mwe = 0; m_maddr = req_addr; m_valid[ln] = 0;
                    end
                end
            end
        end
    endtask

    integer errors, dump, n, cyc_n, n_hit, n_miss, n_wb, n_fill, n_ref, n_flush;

    task check;
        begin
            if (resp_valid !== m_rv || mem_req !== m_mreq || fill_done !== m_fd || evict !== m_ev ||
                flush_done !== m_fld || state !== m_state ||
                (m_rv && (resp_kind !== m_kind || (m_kind < 4 && resp_way !== m_rway) ||
                          (m_kind == 4 && refuse_why !== m_why) || (m_kind < 2 && lru_q !== m_lru))) ||
                (m_mreq && (mem_we !== m_mwe || mem_addr !== m_maddr)) || (m_fd && fill_way !== m_fway) ||
                (m_ev && (evict_dirty !== m_evd || evict_way !== m_eway)) || (m_fld && flush_wb !== m_fwb)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: resp %b/%b kind %0d/%0d way %0d/%0d mem %b/%b we %b/%b addr %h/%h state %0d/%0d fill %b/%b",
                             $time, resp_valid, m_rv, resp_kind, m_kind, resp_way, m_rway, mem_req, m_mreq, mem_we,
                             m_mwe, mem_addr, m_maddr, state, m_state, fill_done, m_fd);
            end
        end
    endtask

    // the memory: acknowledges a request ack_delay cycles after it appears (0: at once)
    integer ack_delay, waited;
    reg     req_before;
    task tick;
        begin
            mem_ack = mem_req && waited >= ack_delay;
            req_before = mem_req;
            check;
            if (dump)
                $display("VEC {\"req_valid\": %0d, \"req_op\": %0d, \"req_addr\": %0d, \"mem_ack\": %0d}",
                         req_valid, req_op, req_addr, mem_ack);
            if (resp_valid) begin
                if (resp_kind < 2) n_hit = n_hit + 1;
                else if (resp_kind < 4) n_miss = n_miss + 1;
                else if (resp_kind == 4) n_ref = n_ref + 1;
            end
            if (mem_req && mem_ack && mem_we) n_wb = n_wb + 1;
            if (fill_done) n_fill = n_fill + 1;
            if (flush_done) n_flush = n_flush + 1;
            @(posedge clk);
            model_step;
            #1;
            waited = (mem_ack || !req_before) ? 0 : waited + 1;
            cyc_n = cyc_n + 1;
        end
    endtask

    task req;   // one request cycle, then the bus is idle
        input [1:0] op; input [15:0] a;
        begin
            req_valid = 1; req_op = op; req_addr = a;
            tick;
            req_valid = 0; req_op = 0; req_addr = 0;
        end
    endtask

    task settle;   // until no miss or flush is outstanding
        begin
            while (mem_req || state != 2'd0) tick;
            tick;
        end
    endtask

    task access;   // a request, then wait for its refill
        input [1:0] op; input [15:0] a;
        begin
            req(op, a);
            settle;
        end
    endtask

    function [15:0] ad;   // the line address of tag t in set st
        input [13:0] t; input [1:0] st;
        ad = {t, st};
    endfunction

    task expect_kind;
        input [2:0] k; input [1:0] way;
        begin
            if (m_kind != k || (k < 4 && m_rway != way)) begin
                errors = errors + 1;
                $display("MISMATCH t=%0t: response %0d way %0d, expected %0d way %0d", $time, m_kind, m_rway, k, way);
            end
        end
    endtask

    initial begin
        errors = 0; dump = 0; cyc_n = 0; n_hit = 0; n_miss = 0; n_wb = 0; n_fill = 0; n_ref = 0; n_flush = 0;
        seed = 32'hCAC4_E123; ack_delay = 1; waited = 0;
        req_valid = 0; req_op = 0; req_addr = 0; mem_ack = 0; rst = 1'b1;
        repeat (3) @(posedge clk);
        model_reset;
        #1 rst = 1'b0;
        dump = $test$plusargs("vectors");
        // directed part (golden.json)
        tick;
        access(2'd0, ad(14'h0A0, 0)); expect_kind(2, 0);    // four read misses fill set 0, ways 0-3
        access(2'd0, ad(14'h0A1, 0)); expect_kind(2, 1);
        access(2'd0, ad(14'h0A2, 0)); expect_kind(2, 2);
        access(2'd1, ad(14'h0A3, 0)); expect_kind(3, 3);
        // hits leaving the tree in every state: ways 0 2 0 1 3 1 2 0 3
        req(2'd0, ad(14'h0A0, 0)); req(2'd1, ad(14'h0A2, 0)); req(2'd0, ad(14'h0A0, 0));
        req(2'd1, ad(14'h0A1, 0)); req(2'd0, ad(14'h0A3, 0)); req(2'd0, ad(14'h0A1, 0));
        req(2'd0, ad(14'h0A2, 0)); req(2'd1, ad(14'h0A0, 0)); req(2'd0, ad(14'h0A3, 0));
        tick; expect_kind(0, 3);
        // set 0 now dirty in every way: write misses evict each way dirty, after a clean one
        access(2'd0, ad(14'h1B0, 0));                        // victims: ways 1 2 0 3, then 1B0, clean
        access(2'd1, ad(14'h1B1, 0));
        access(2'd1, ad(14'h1B2, 0));
        access(2'd1, ad(14'h1B3, 0));
        access(2'd1, ad(14'h1B4, 0));
        access(2'd1, ad(14'h1B5, 0));
        // a hit under a miss, and the three refusals
        access(2'd1, ad(14'h2C0, 1));
        ack_delay = 6;
        req(2'd0, ad(14'h2C1, 2));                           // a miss to set 2, answered late
        req(2'd0, ad(14'h2C0, 1));                           // hit in set 1 under the miss
        req(2'd1, ad(14'h2C2, 3));                           // miss under miss: refused
        req(2'd0, ad(14'h2C1, 2));                           // the set being filled: refused
        req(2'd2, 16'h0);                                    // flush while busy: refused
        req(2'd3, 16'h0);                                    // reserved operation
        settle;
        ack_delay = 1;
        // a flush of a partly dirty cache, then of a clean one, refusing a request meanwhile
        req(2'd2, 16'h0); req(2'd0, ad(14'h0A0, 0)); settle;
        req(2'd2, 16'h0); settle;
        // sixteen write misses make every line dirty; flush them all
        for (n = 0; n < 16; n = n + 1) access(2'd1, ad(14'h300 + n, n[1:0]));
        ack_delay = 0;
        req(2'd2, 16'h0); settle;
        tick;
        dump = 0;
        if (n_hit != 10 || n_flush != 3 || n_wb != 26 || n_ref != 4) begin
            errors = errors + 1;
            $display("MISMATCH: %0d hits, %0d flushes, %0d write-backs, %0d refused", n_hit, n_flush, n_wb, n_ref);
        end
        // random requests over a few lines per set, random memory latency
        for (n = 0; n < 3000; n = n + 1) begin
            if (!mem_req) ack_delay = urand(0) % 4;
            req_valid = urand(0) % 2;
            req_op = (urand(0) % 40 == 0) ? 2'd2 : (urand(0) % 50 == 0) ? 2'd3 : urand(0) % 2;
            req_addr = ((urand(0) % 24) << 2) | (urand(0) % 4);
            tick;
        end
        req_valid = 0; settle;
        if (errors == 0) $display("TEST PASSED (%0d cycles, %0d hits, %0d misses, %0d write-backs, %0d flushes)",
                                  cyc_n, n_hit, n_miss, n_wb, n_flush);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
