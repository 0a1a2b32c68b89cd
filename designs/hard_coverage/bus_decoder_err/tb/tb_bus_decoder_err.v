`timescale 1ns/1ps
// Self-checking testbench for bus_decoder_err: directed reads and writes of every size
// at the first and last bytes of every region and just outside them, misaligned and
// reserved-size accesses, ROM writes, 300 errors to saturate err_count, then 20000
// random requests, half of them near a region boundary, with rare resets. A decode
// model is stepped at each rising edge; every output is checked every cycle.
module tb_bus_decoder_err;
    reg         clk = 1'b0;
    reg         rst_n;
    reg         req, we;
    reg  [1:0]  size;
    reg  [15:0] addr;
    wire        rsp_valid, rsp_err, rsp_we;
    wire [1:0]  err_code, rsp_size;
    wire [2:0]  region;
    wire [5:0]  sel;
    wire [15:0] rsp_addr;
    wire [7:0]  err_count;

    bus_decoder_err dut (.clk(clk), .rst_n(rst_n), .req(req), .we(we), .size(size), .addr(addr),
                         .rsp_valid(rsp_valid), .rsp_err(rsp_err), .err_code(err_code), .region(region),
                         .sel(sel), .rsp_we(rsp_we), .rsp_size(rsp_size), .rsp_addr(rsp_addr),
                         .err_count(err_count));

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

    // region table: first and last byte
    reg [15:0] lo [0:5];
    reg [15:0] hi [0:5];

    reg        m_valid, m_err, m_we;
    reg  [1:0] m_code, m_size;
    reg  [2:0] m_region;
    reg  [5:0] m_sel;
    reg [15:0] m_addr;
    integer    m_cnt, j, n, r, b, n_ok [0:5];

    task check;
        begin
            if (rsp_valid !== m_valid || rsp_err !== m_err || err_code !== m_code || region !== m_region ||
                sel !== m_sel || rsp_we !== m_we || rsp_size !== m_size || rsp_addr !== m_addr ||
                err_count !== m_cnt[7:0]) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: valid=%b err=%b code=%0d region=%0d sel=%b addr=%h count=%0d expected valid=%b err=%b code=%0d region=%0d sel=%b addr=%h count=%0d",
                             $time, rsp_valid, rsp_err, err_code, region, sel, rsp_addr, err_count,
                             m_valid, m_err, m_code, m_region, m_sel, m_addr, m_cnt);
            end
        end
    endtask
    integer errors;

    task model_reset;
        begin
            m_valid = 0; m_err = 0; m_code = 0; m_region = 7; m_sel = 0; m_we = 0; m_size = 0; m_addr = 0; m_cnt = 0;
        end
    endtask

    task model_step;
        integer k;
        reg [2:0] rg;
        reg       mis;
        begin
            if (req) begin
                rg = 7;
                for (k = 0; k < 6; k = k + 1)
                    if (addr >= lo[k] && addr <= hi[k]) rg = k;
                mis = size == 3 || (size == 1 && addr % 2 != 0) || (size == 2 && addr % 4 != 0);
                m_code = (rg == 7) ? 1 : (mis ? 2 : ((we && rg == 0) ? 3 : 0));
                m_valid = 1; m_err = m_code != 0; m_region = rg; m_we = we; m_size = size; m_addr = addr;
                m_sel = (m_code == 0) ? (6'd1 << rg) : 6'd0;
                if (m_code != 0 && m_cnt < 255) m_cnt = m_cnt + 1;
                if (m_code == 0) n_ok[rg] = n_ok[rg] + 1;
            end else begin
                m_valid = 0; m_err = 0; m_sel = 0;
            end
        end
    endtask

    task cycle;
        input rq; input w; input [1:0] s; input [15:0] a;
        begin
            @(negedge clk);
            check;
            req = rq; we = w; size = s; addr = a;
            @(posedge clk);
            model_step;
        end
    endtask

    integer s, w, e;
    initial begin
        lo[0] = 16'h0000; hi[0] = 16'h0BFF;  lo[1] = 16'h0C00; hi[1] = 16'h2FFF;
        lo[2] = 16'h3000; hi[2] = 16'h33FF;  lo[3] = 16'h3400; hi[3] = 16'h341F;
        lo[4] = 16'h8000; hi[4] = 16'h803F;  lo[5] = 16'hFFE8; hi[5] = 16'hFFEF;
        errors = 0;
        for (j = 0; j < 6; j = j + 1) n_ok[j] = 0;
        seed = 32'hB05D_EC0D;
        req = 0; we = 0; size = 0; addr = 0;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        // every region, both directions, every size, at its first and last bytes and just outside
        for (j = 0; j < 6; j = j + 1)
            for (w = 0; w < 2; w = w + 1)
                for (s = 0; s < 4; s = s + 1)
                    for (e = 0; e < 4; e = e + 1) begin
                        cycle(1, w, s, e == 0 ? lo[j] : (e == 1 ? hi[j] - (s == 2 ? 3 : (s == 1 ? 1 : 0)) :
                                                        (e == 2 ? lo[j] - 1 : hi[j] + 1)));
                        if (e == 3) cycle(0, 0, 0, 0);
                    end
        for (j = 0; j < 300; j = j + 1) cycle(1, j % 2, j % 4, 16'hC000 + j);   // err_count saturates
        for (n = 0; n < 20000; n = n + 1) begin
            r = urand(0) % 100;
            b = urand(0) % 6;
            cycle(r < 80, urand(0), urand(0),
                  (r < 40) ? ((urand(0) % 2) ? lo[b] + urand(0) % 8 - 4 : hi[b] + urand(0) % 8 - 3) : urand(0));
            if (urand(0) % 4000 == 0) begin
                @(negedge clk); check; req = 0;
                #2 rst_n = 1'b0;
                #1 model_reset;
                check;
                #1 rst_n = 1'b1;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk);
        check;
        for (j = 0; j < 6; j = j + 1)
            if (n_ok[j] < 50) begin
                $display("coverage: region %0d accepted %0d accesses", j, n_ok[j]);
                errors = errors + 1;
            end
        if (errors == 0) $display("TEST PASSED (accepted per region %0d %0d %0d %0d %0d %0d)",
                                  n_ok[0], n_ok[1], n_ok[2], n_ok[3], n_ok[4], n_ok[5]);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
