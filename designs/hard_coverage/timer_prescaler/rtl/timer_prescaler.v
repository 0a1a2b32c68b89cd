// timer_prescaler: 16-bit up-counting timer behind an 8-bit programmable prescaler,
// with a compare match, one-shot or periodic mode, a reload value and overflow.
// Registers, written with wr_en at wr_addr: 0 prescale (wr_data[7:0]; the timer
// ticks every prescale + 1 cycles; it ticks at once when the prescaler count is
// already at or above a newly written prescale), 1 compare, 2 reload, 3 mode (wr_data[0]:
// 1 periodic, 0 one-shot). stop (priority) halts the timer; start loads count with
// reload, clears the prescaler, done and ovf, and runs. On a tick: count == compare
// pulses match and then reloads (periodic) or stops and sets done (one-shot);
// otherwise count == FFFF sets the sticky ovf and reloads; otherwise count
// increments. Register writes take effect at the edge; the timer uses the values
// from before it. Asynchronous active-low reset: prescale 0, compare FFFF,
// reload 0, one-shot, stopped, count 0.
module timer_prescaler (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        wr_en,
    input  wire [1:0]  wr_addr,
    input  wire [15:0] wr_data,
    input  wire        start,
    input  wire        stop,
    output reg  [15:0] count,
    output reg         running,
    output reg         match,
    output reg         done,
    output reg         ovf
);
    localparam [1:0] A_PRESCALE = 2'd0, A_COMPARE = 2'd1, A_RELOAD = 2'd2;

    reg [7:0]  prescale;
    reg [7:0]  pcnt;
    reg [15:0] compare;
    reg [15:0] reload;
    reg        periodic;

    wire tick = running && (pcnt >= prescale);   // >=: a prescale written below pcnt ticks at once

    // configuration registers
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            prescale <= 8'd0;
            compare  <= 16'hFFFF;
            reload   <= 16'd0;
            periodic <= 1'b0;
        end else if (wr_en) begin
            case (wr_addr)
                A_PRESCALE: prescale <= wr_data[7:0];
                A_COMPARE:  compare  <= wr_data;
                A_RELOAD:   reload   <= wr_data;
                default:    periodic <= wr_data[0];
            endcase
        end
    end

    // prescaler and timer
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            count   <= 16'd0;
            pcnt    <= 8'd0;
            running <= 1'b0;
            match   <= 1'b0;
            done    <= 1'b0;
            ovf     <= 1'b0;
        end else begin
            match <= 1'b0;
            if (stop) begin
                running <= 1'b0;
            end else if (start) begin
                running <= 1'b1;
                count   <= reload;
                pcnt    <= 8'd0;
                done    <= 1'b0;
                ovf     <= 1'b0;
            end else if (tick) begin
                pcnt <= 8'd0;
                if (count == compare) begin
                    match <= 1'b1;
                    if (periodic)
                        count <= reload;
                    else begin
                        running <= 1'b0;          // one-shot: stop at the match
                        done    <= 1'b1;
                    end
                end else if (count == 16'hFFFF) begin
                    ovf   <= 1'b1;                // wrapped past the top without a match
                    count <= reload;
                end else begin
                    count <= count + 16'd1;
                end
            end else if (running) begin
                pcnt <= pcnt + 8'd1;
            end
        end
    end
endmodule
