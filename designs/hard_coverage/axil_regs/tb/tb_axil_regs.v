`timescale 1ns/1ps
// Self-checking testbench for axil_regs. A cycle model of the slave (buffers, response
// channels, register file, lock and its timer) is stepped at each rising edge and every
// output is compared each cycle; each transaction's response and read data are also
// checked against what the test expects. The directed part reaches every functional bin of
// coverage.yaml (with +vectors it prints its input rows, the rows of golden.json): address
// and data in either order or together, stalled responses with a write queued behind one,
// read-only, misaligned and unmapped accesses, wrong keys, the magic key followed by a
// protected write, a refused write, a wrong key and the window running out. Then 400
// random transactions with random delays, some with the magic key.
module tb_axil_regs;
    localparam [31:0] MAGIC = 32'hC0DE_5A5A;
    reg         clk = 1'b0;
    reg         rst;
    reg         awvalid, wvalid, bready, arvalid, rready;
    reg  [5:0]  awaddr, araddr;
    reg  [31:0] wdata;
    reg  [3:0]  wstrb;
    wire        awready, wready, bvalid, arready, rvalid, unlocked, relock;
    wire [1:0]  bresp, rresp, relock_why;
    wire [2:0]  wr_evt;
    wire [31:0] rdata;
    wire [3:0]  rsel;
    wire [4:0]  ukt;
    wire [7:0]  werr_cnt;

    axil_regs dut (.clk(clk), .rst(rst), .awvalid(awvalid), .awaddr(awaddr), .awready(awready), .wvalid(wvalid),
                   .wdata(wdata), .wstrb(wstrb), .wready(wready), .bvalid(bvalid), .bresp(bresp), .wr_evt(wr_evt),
                   .bready(bready), .arvalid(arvalid), .araddr(araddr), .arready(arready), .rvalid(rvalid),
                   .rdata(rdata), .rresp(rresp), .rsel(rsel), .rready(rready), .unlocked(unlocked), .ukt(ukt),
                   .relock(relock), .relock_why(relock_why), .werr_cnt(werr_cnt));

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

    function [31:0] merge;
        input [31:0] old, d;
        input [3:0]  s;
        merge = {s[3] ? d[31:24] : old[31:24], s[2] ? d[23:16] : old[23:16],
                 s[1] ? d[15:8] : old[15:8], s[0] ? d[7:0] : old[7:0]};
    endfunction

    // ---------------------------------------------------------------- the model
    reg        m_awf, m_wf, m_bv, m_rv, m_unl, m_rl;
    reg [5:0]  m_aw;
    reg [31:0] m_wd, m_ctrl, m_scr, m_prot, m_rdata;
    reg [3:0]  m_ws, m_rsel;
    reg [1:0]  m_bresp, m_rresp, m_why;
    reg [2:0]  m_evt, e;
    reg [4:0]  m_ukt;
    reg [7:0]  m_werr;
    reg        exec;
    integer    w;

    task model_reset;
        begin
            m_awf = 0; m_wf = 0; m_bv = 0; m_rv = 0; m_unl = 0; m_rl = 0; m_aw = 0; m_wd = 0; m_ctrl = 0;
            m_scr = 0; m_prot = 0; m_rdata = 0; m_ws = 0; m_rsel = 0; m_bresp = 0; m_rresp = 0; m_why = 0;
            m_evt = 0; m_ukt = 0; m_werr = 0;
        end
    endtask

    task model_step;  // one rising edge with the current inputs
        begin
            exec = m_awf && m_wf && (!m_bv || bready);
            w = m_aw[5:2];
            if (w > 5)                  e = 7;
            else if (m_aw[1:0] != 0)    e = 6;
            else if (w == 0 || w == 2)  e = 0;
            else if (w == 1 || w == 3)  e = 5;
            else if (w == 4)            e = (m_wd == MAGIC && m_ws == 4'hF) ? 1 : 2;
            else                        e = (m_unl && m_ws == 4'hF) ? 3 : 4;
            m_rl = 0;
            // read channel (sees the registers before this edge)
            if (arvalid && !m_rv) begin
                m_rv = 1; m_rsel = araddr[5:2];
                if (araddr[5:2] > 5)          begin m_rdata = 0; m_rresp = 2'b11; end
                else if (araddr[1:0] != 0)    begin m_rdata = 0; m_rresp = 2'b10; end
                else begin
                    m_rresp = 0;
                    case (araddr[5:2])
                        0: m_rdata = m_ctrl;
                        1: m_rdata = {16'd0, m_werr, 7'd0, m_unl};
                        2: m_rdata = m_scr;
                        3: m_rdata = 32'h4158_4C31;
                        4: m_rdata = 0;
                        default: m_rdata = m_prot;
                    endcase
                end
            end else if (m_rv && rready)
                m_rv = 0;
            // lock
            if (exec && e == 1) begin
                m_unl = 1; m_ukt = 31;
            end else if (m_unl && exec && (e == 2 || e == 3 || e == 4)) begin
                m_unl = 0; m_rl = 1; m_why = (e == 2) ? 3 : 2;
            end else if (m_unl && m_ukt == 0) begin
                m_unl = 0; m_rl = 1; m_why = 1;
            end else if (m_unl)
                m_ukt = m_ukt - 1;
            // write channel
            if (m_bv && bready) m_bv = 0;
            if (exec) begin
                m_awf = 0; m_wf = 0; m_bv = 1; m_evt = e;
                m_bresp = (e == 7) ? 2'b11 : (e == 0 || e == 1 || e == 3) ? 2'b00 : 2'b10;
                if (m_bresp != 0 && m_werr != 255) m_werr = m_werr + 1;
                if (e == 0 && w == 0) m_ctrl = merge(m_ctrl, m_wd, m_ws);
                if (e == 0 && w == 2) m_scr = merge(m_scr, m_wd, m_ws);
                if (e == 3) m_prot = m_wd;
            end
            // a buffer taken by the write is empty before this edge, so not taken again
            if (awvalid && !m_awf && !exec) begin m_awf = 1; m_aw = awaddr; end
            if (wvalid && !m_wf && !exec)   begin m_wf = 1; m_wd = wdata; m_ws = wstrb; end
        end
    endtask

    integer errors, dump, i, n, t, cyc_n;

    task check;
        begin
            if (awready !== !m_awf || wready !== !m_wf || bvalid !== m_bv || arready !== !m_rv || rvalid !== m_rv ||
                unlocked !== m_unl || relock !== m_rl || werr_cnt !== m_werr ||
                (m_bv && (bresp !== m_bresp || wr_evt !== m_evt)) ||
                (m_rv && (rdata !== m_rdata || rresp !== m_rresp || rsel !== m_rsel)) ||
                (m_unl && ukt !== m_ukt) || (m_rl && relock_why !== m_why)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: aw %b w %b b %b/%b evt %0d r %b %h/%h unl %b/%b ukt %0d/%0d rl %b/%b",
                             $time, awready, wready, bvalid, m_bv, wr_evt, rvalid, rdata, m_rdata, unlocked, m_unl,
                             ukt, m_ukt, relock, m_rl);
            end
        end
    endtask

    // one cycle with the inputs as they are now; handshakes of the cycle in hs_*
    reg hs_aw, hs_w, hs_b, hs_ar, hs_r;
    reg [1:0]  got_bresp, got_rresp;
    reg [2:0]  got_evt;
    reg [31:0] got_rdata;
    task tick;
        begin
            check;
            if (dump)
                $display("VEC {\"awvalid\": %0d, \"awaddr\": %0d, \"wvalid\": %0d, \"wdata\": %0d, \"wstrb\": %0d, \"bready\": %0d, \"arvalid\": %0d, \"araddr\": %0d, \"rready\": %0d}",
                         awvalid, awaddr, wvalid, wdata, wstrb, bready, arvalid, araddr, rready);
            hs_aw = awvalid && awready; hs_w = wvalid && wready; hs_b = bvalid && bready;
            hs_ar = arvalid && arready; hs_r = rvalid && rready;
            if (hs_b) begin got_bresp = bresp; got_evt = wr_evt; end
            if (hs_r) begin got_rresp = rresp; got_rdata = rdata; end
            @(posedge clk);
            model_step;
            #1;
            cyc_n = cyc_n + 1;
        end
    endtask

    task idle;
        input integer k;
        integer j;
        begin
            for (j = 0; j < k; j = j + 1) tick;
        end
    endtask

    // a write: the address from cycle aw_at, the data from w_at, bready from b_at
    task wr;
        input [5:0] a; input [31:0] d; input [3:0] s;
        input integer aw_at, w_at, b_at;
        input [2:0] exp_evt;
        reg aw_p, w_p, b_p;
        integer k;
        begin
            aw_p = 1; w_p = 1; b_p = 1; k = 0;
            while (b_p) begin
                awvalid = aw_p && k >= aw_at; awaddr = awvalid ? a : 6'd0;
                wvalid  = w_p && k >= w_at;   wdata = wvalid ? d : 32'd0; wstrb = wvalid ? s : 4'd0;
                bready  = k >= b_at;
                tick;
                if (hs_aw) aw_p = 0;
                if (hs_w)  w_p = 0;
                if (hs_b) begin
                    b_p = 0;
                    if (got_evt !== exp_evt) begin
                        errors = errors + 1;
                        $display("MISMATCH t=%0t: write %h gave event %0d, expected %0d", $time, a, got_evt, exp_evt);
                    end
                end
                k = k + 1;
            end
            awvalid = 0; wvalid = 0; bready = 0; awaddr = 0; wdata = 0; wstrb = 0;
        end
    endtask

    task rd;
        input [5:0] a; input integer r_at;
        input [1:0] exp_resp; input [31:0] exp_data;
        reg ar_p, r_p;
        integer k;
        begin
            ar_p = 1; r_p = 1; k = 0;
            while (r_p) begin
                arvalid = ar_p; araddr = ar_p ? a : 6'd0;
                rready  = k >= r_at;
                tick;
                if (hs_ar) ar_p = 0;
                if (hs_r) begin
                    r_p = 0;
                    if (got_rresp !== exp_resp || got_rdata !== exp_data) begin
                        errors = errors + 1;
                        $display("MISMATCH t=%0t: read %h gave %0d %h, expected %0d %h", $time, a, got_rresp,
                                 got_rdata, exp_resp, exp_data);
                    end
                end
                k = k + 1;
            end
            arvalid = 0; rready = 0; araddr = 0;
        end
    endtask

    integer unl_len, n_timeouts;
    always @(posedge clk) begin
        if (rst) unl_len = 0;
        else begin
            if (unlocked) unl_len = unl_len + 1;
            if (relock && relock_why == 2'd1) begin
                n_timeouts = n_timeouts + 1;
                if (unl_len != 32) begin
                    errors = errors + 1;
                    $display("MISMATCH t=%0t: unlocked for %0d cycles before the timeout", $time, unl_len);
                end
            end
            if (!unlocked) unl_len = 0;
        end
    end

    reg [5:0]  ra;
    reg [31:0] rv;
    reg        p_aw, p_w;
    initial begin
        errors = 0; dump = 0; cyc_n = 0; n_timeouts = 0;
        seed = 32'hA71C_0DE5;
        awvalid = 0; wvalid = 0; bready = 0; arvalid = 0; rready = 0; awaddr = 0; araddr = 0; wdata = 0; wstrb = 0;
        rst = 1'b1;
        repeat (3) @(posedge clk);
        model_reset;
        #1 rst = 1'b0;
        dump = $test$plusargs("vectors");
        // directed part (golden.json)
        wr(6'h00, 32'h1234_5678, 4'hF, 0, 0, 0, 0);      // address and data together
        wr(6'h08, 32'hCAFE_F00D, 4'hF, 0, 3, 0, 0);      // address first
        wr(6'h08, 32'h0000_BE00, 4'h2, 3, 0, 0, 0);      // data first, one byte lane
        rd(6'h00, 0, 2'b00, 32'h1234_5678);
        rd(6'h08, 1, 2'b00, 32'hCAFE_BE0D);              // response stalled one cycle
        rd(6'h0C, 9, 2'b00, 32'h4158_4C31);              // stalled eight cycles
        rd(6'h14, 0, 2'b00, 32'h0);                      // PROT still 0
        rd(6'h10, 0, 2'b00, 32'h0);                      // KEY reads 0
        wr(6'h04, 32'hFFFF_FFFF, 4'hF, 0, 0, 0, 5);      // read-only
        wr(6'h0B, 32'h1, 4'hF, 0, 0, 1, 6);              // misaligned, stalled one cycle
        wr(6'h20, 32'h1, 4'hF, 0, 0, 4, 7);              // unmapped, stalled four cycles
        rd(6'h21, 0, 2'b11, 32'h0);
        rd(6'h06, 0, 2'b10, 32'h0);
        rd(6'h3C, 0, 2'b11, 32'h0);
        wr(6'h14, 32'hDEAD_BEEF, 4'hF, 0, 0, 0, 4);      // PROT while locked
        wr(6'h10, MAGIC ^ 32'h1, 4'hF, 0, 0, 0, 2);      // a wrong key
        wr(6'h10, MAGIC, 4'h7, 0, 0, 0, 2);              // the key without every strobe
        wr(6'h00, 32'h0, 4'h1, 0, 0, 20, 0);             // a response stalled past fifteen cycles
        // a write queued behind a stalled response
        awvalid = 1; awaddr = 6'h08; wvalid = 1; wdata = 32'h5555_AAAA; wstrb = 4'hF;
        tick; awvalid = 0; wvalid = 0; tick;             // the first write is done, its response waits
        awvalid = 1; awaddr = 6'h00; wvalid = 1; wdata = 32'h0F0F_0F0F; wstrb = 4'hC;
        tick; awvalid = 0; wvalid = 0; tick; tick;       // the second one is buffered behind it
        bready = 1; tick; tick; bready = 0; tick;
        rd(6'h00, 0, 2'b00, 32'h0F0F_5600);
        // the magic key, then a protected write late in the window
        wr(6'h10, MAGIC, 4'hF, 0, 0, 0, 1);
        idle(20);
        wr(6'h14, 32'h600D_CAFE, 4'hF, 1, 0, 0, 3);
        rd(6'h14, 0, 2'b00, 32'h600D_CAFE);
        rd(6'h04, 0, 2'b00, {16'd0, werr_cnt, 8'd0});
        // the window runs out
        wr(6'h10, MAGIC, 4'hF, 0, 0, 0, 1);
        idle(40);
        // a wrong key while unlocked
        wr(6'h10, MAGIC, 4'hF, 0, 0, 0, 1);
        idle(3);
        wr(6'h10, 32'h0, 4'hF, 0, 0, 0, 2);
        // a protected write with a missing strobe while unlocked: refused, relocked
        wr(6'h10, MAGIC, 4'hF, 0, 0, 0, 1);
        wr(6'h14, 32'h1111_1111, 4'h3, 0, 0, 0, 4);
        rd(6'h14, 0, 2'b00, 32'h600D_CAFE);
        idle(2);
        dump = 0;
        if (n_timeouts != 1) begin errors = errors + 1; $display("MISMATCH: %0d timeouts", n_timeouts); end
        // random transactions, checked by the model
        for (n = 0; n < 400; n = n + 1) begin
            ra = (urand(0) % 3 == 0) ? urand(0) : (urand(0) % 6) << 2;
            if (urand(0) % 2) begin
                rv = (ra[5:2] == 4 && urand(0) % 2) ? MAGIC : urand(0);
                t = urand(0) % 4; i = urand(0) % 4; p_aw = 1; p_w = 1;
                awaddr = ra; wdata = rv; wstrb = (urand(0) % 2) ? 4'hF : urand(0);
                while (p_aw || p_w) begin
                    awvalid = p_aw && t == 0; wvalid = p_w && i == 0;
                    bready = urand(0) % 2; rready = urand(0) % 2;
                    tick;
                    if (hs_aw) p_aw = 0;
                    if (hs_w)  p_w = 0;
                    if (t > 0) t = t - 1;
                    if (i > 0) i = i - 1;
                end
                awvalid = 0; wvalid = 0;
            end else begin
                arvalid = 1; araddr = ra; rready = urand(0) % 2;
                tick;
                while (!hs_ar) begin rready = urand(0) % 2; tick; end
                arvalid = 0;
            end
            bready = urand(0) % 2; rready = urand(0) % 2;
            idle(urand(0) % 3);
        end
        bready = 1; rready = 1; idle(4);
        if (errors == 0) $display("TEST PASSED (%0d cycles, %0d write errors counted)", cyc_n, werr_cnt);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
